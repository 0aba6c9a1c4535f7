"""Remote agents the deployment declares in a file (MCP servers, AG-UI agents): each entry of
the file is an Agent row of its kind, on the home page for the groups it names, read-only in
the admin (a URL or command typed into a web form would let any staff user reach anything).

`Declared` says, for one kind, how its file is read and how its rows name their entries; the
MCP bridge and the AG-UI app each make one and use it for their catalog, agent and admin.
Nothing about an entry but its name, title, description and last check is stored.
"""

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from asgiref.sync import sync_to_async
from django.contrib import admin

from playground.runs.models import Agent

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Declared:
    kind: str  # the rows' kind and slug prefix ("mcp": rows "mcp-<name>")
    key: str  # the row's config key naming its entry ("server")
    load: Callable[[], dict]  # the entries by name, read now; raises `error`
    error: type[Exception]
    one: str  # what an entry is, for people ("MCP server")
    file: str  # where entries are declared ("servers file")
    check: str  # the command that checks them ("mcp_check")
    description: str  # a row's description when its entry has none

    def slug(self, name: str) -> str:
        return f"{self.kind}-{name}"

    def sync(self, declared: dict | None = None) -> list[Agent]:
        """Create or update the entries' rows; hide those no longer declared."""
        declared = self.load() if declared is None else declared
        agents = []
        for name, entry in declared.items():
            agent, _ = Agent.objects.update_or_create(
                slug=self.slug(name),
                defaults={
                    "name": entry.display_name,
                    "description": entry.description or self.description,
                    "kind": self.kind,
                    "builtin": True,
                },
            )
            if agent.config.get(self.key) != name:
                agent.config = {**agent.config, self.key: name}
                agent.save(update_fields=["config"])
            agents.append(agent)
        # An entry taken out of the file leaves the home page; its conversations stay readable.
        gone = Agent.objects.filter(kind=self.kind).exclude(slug__in=[a.slug for a in agents])
        gone.update(builtin=False)
        return agents

    def sync_after_migrate(self, sender, **kwargs) -> None:
        """After `migrate` (so `make run` lists them): sync, or say why the file is wrong."""
        try:
            self.sync()
        except self.error as error:
            logger.error("%ss not loaded: %s", self.one, error)

    def record_status(self, name: str, status: str) -> None:
        """Remember the last check's result for the admin."""
        agent = Agent.objects.filter(slug=self.slug(name)).first()
        if agent is not None:
            agent.config = {**agent.config, "status": status}
            agent.save(update_fields=["config"])

    def entry_of(self, agent_row) -> Any:
        """Return the entry behind `agent_row` (None: not declared); raise `error`."""
        return self.load().get(agent_row.config.get(self.key, ""))

    def available_to(self, agent_row, user) -> bool:
        """Return whether `user` may use the entry behind `agent_row` (its groups allow them)."""
        try:
            entry = self.entry_of(agent_row)
        except self.error:
            return False
        return entry is not None and entry.allows(user)

    async def usable(self, ctx) -> tuple[Any, str]:
        """Return the entry of the turn's agent and "", or None and why it cannot be used."""
        try:
            entry = self.entry_of(ctx.agent)
        except self.error as error:
            return None, str(error)
        if entry is None:
            return None, f"This {self.one} is no longer in the {self.file}."
        # Only an entry for some groups asks the database: no hop off the loop for the others.
        if entry.groups and not await sync_to_async(entry.allows)(ctx.user):
            return None, f"You are not in a group allowed to use {entry.display_name}."
        return entry, ""


class DeclaredAdmin(admin.ModelAdmin):
    """The rows of a declared kind, read-only: they are declared in its file, never here."""

    declared: Declared
    search_fields = ["name", "slug"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def entry(self, agent) -> Any:
        try:
            return self.declared.entry_of(agent)
        except self.declared.error:
            return None

    @admin.display(description="Groups")
    def groups(self, agent) -> str:
        entry = self.entry(agent)
        return ", ".join(entry.groups) or "every logged-in user" if entry else ""

    @admin.display(description="Last check")
    def status(self, agent) -> str:
        return agent.config.get("status") or f"not checked yet (manage.py {self.declared.check})"

    @admin.display(description="On the home page", boolean=True)
    def listed(self, agent) -> bool:
        return agent.builtin

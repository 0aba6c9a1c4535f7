"""The AG-UI agents file: which AG-UI endpoints this playground may run, and how.

Declared by whoever deploys the playground (never in the admin). `AGUI_AGENTS_FILE` names a
TOML file:

    [agents.travel]
    url = "https://agents.example.com/travel"     # the endpoint a RunAgentInput is POSTed to
    title = "Travel agent"
    description = "Plans trips."
    headers = { Authorization = "AGUI_TRAVEL_AUTH" }  # header value read from that variable
    groups = ["staff"]                 # default: every logged-in user
    timeout_seconds = 60               # for connecting and between two events
    connection = "travel"              # each person's own credential (its service's headers)

Only environment variables whose names start with `AGUI_` or `MCP_` (shared with the MCP
servers file) may be referenced; their values are
read when a run starts and are never written to the database.
"""

import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from django.conf import settings

from playground.connections import declarations

ENV_PREFIXES = ("AGUI_", "MCP_")
URL = re.compile(r"^https?://[^\s/@]+(/\S*)?$")


class AgentsFileError(Exception):
    """The agents file cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class AguiAgentConfig:
    name: str
    url: str
    title: str = ""
    description: str = ""
    headers: dict[str, str] = field(default_factory=dict)  # header name -> env var name
    groups: tuple[str, ...] = ()
    timeout_seconds: float = 60.0
    connection: str = ""
    # A person's credential headers, set per run by the agent (never in the file, never stored).
    person_headers: dict[str, str] = field(default_factory=dict, repr=False, compare=False)

    @property
    def display_name(self) -> str:
        return self.title or self.name

    def header_values(self) -> dict[str, str]:
        """Return the HTTP headers, their values read from the environment now."""
        values = {h: os.environ[var] for h, var in self.headers.items() if var in os.environ}
        return {**values, **self.person_headers}

    def allows(self, user) -> bool:
        """Return whether `user` may use this agent (any logged-in user when no groups)."""
        if not user.is_authenticated:
            return False
        return not self.groups or user.groups.filter(name__in=self.groups).exists()


def load(path: str | Path | None = None) -> dict[str, AguiAgentConfig]:
    """Return the declared AG-UI agents by name (none when no agents file is set)."""
    path = path or settings.AGUI_AGENTS_FILE
    return _read(Path(path)) if path else {}


def _read(path: Path) -> dict[str, AguiAgentConfig]:
    entries = declarations.entries(path, "agents", AgentsFileError)
    return {name: _agent(where, name, table) for where, name, table in entries}


def _agent(where: str, name: str, table: dict) -> AguiAgentConfig:
    known = set(AguiAgentConfig.__dataclass_fields__) - {"name", "person_headers"}
    declarations.known_keys(where, table, known, AgentsFileError)
    url = table.get("url")
    if not isinstance(url, str) or not URL.match(url):
        raise AgentsFileError(
            f"{where}.url: an AG-UI agent needs an http(s):// URL without a user or password."
        )
    values: dict = {"name": name, "url": url}
    for key in ("title", "description", "connection"):
        if key in table:
            values[key] = declarations.text(where, key, table[key], AgentsFileError)
    if "groups" in table:
        values["groups"] = tuple(
            declarations.texts(where, "groups", table["groups"], AgentsFileError)
        )
    if "timeout_seconds" in table:
        timeout = table["timeout_seconds"]
        values["timeout_seconds"] = declarations.positive(
            where, "timeout_seconds", timeout, float, AgentsFileError
        )
    if "headers" in table:
        headers = table["headers"]
        if not isinstance(headers, dict):
            raise AgentsFileError(f"{where}.headers: must be a table of header = variable name.")
        for header, variable in headers.items():
            if not isinstance(variable, str) or not variable.startswith(ENV_PREFIXES):
                raise AgentsFileError(
                    f"{where}.headers.{header}: {variable!r} is not allowed; only environment "
                    "variables whose names start with AGUI_ or MCP_ can be sent to an agent."
                )
        values["headers"] = dict(headers)
    return AguiAgentConfig(**values)


def replace_headers(agent: AguiAgentConfig, headers: dict[str, str]) -> AguiAgentConfig:
    """Return `agent` sending a person's credential headers too (for one run, never stored)."""
    return replace(agent, person_headers=dict(headers))

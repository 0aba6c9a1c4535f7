"""The agent registry: an async function, or a class with an async `run`, under a slug.

@agent("greeter", name="Greeter", description="Asks your name, then says hello.")
async def greeter(ctx, message):
    ...

An agent that runs on its own takes `schedule=`: a trigger as the wizard makes them
(`{"kind": "weekdays", "time": "09:00"}`) or RFC 5545 RRULE text
(`"FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0;BYSECOND=0"`), in each person's time zone; or a
function of the agent's row returning a `Planned` (or None), for agents whose rows carry their
own schedule (the wizard's). See playground/schedules/scheduler.py.
"""

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from playground.schedules import recurrence


@dataclass(frozen=True)
class AgentSpec:
    slug: str
    name: str
    description: str
    run: Callable[[Any, str], Awaitable[None]]
    # Listed agents get a row (and a place on the home page) when `manage.py seed` runs.
    listed: bool = True
    # (agent row, user) -> whether this person may chat with it; None: everyone who sees it.
    available_to: Callable[[Any, Any], bool] | None = None
    # Speaks first: a new conversation starts with a turn that has no message from the person
    # (an MCP server shows its tools before anyone writes).
    opens_conversation: bool = False
    # (button label, message) pairs an empty conversation offers, so a first try is one click.
    samples: tuple[tuple[str, str], ...] = ()
    # When it runs on its own: a trigger, RRULE text, or (agent row) -> Planned | None.
    schedule: "dict | str | Callable[[Any], Planned | None] | None" = None
    # The URL name of the page where the owner of one of its rows edits it (takes the slug).
    edit_url: str = ""
    # Talks to a server (MCP): its chat has a Wire panel of what travelled; or (agent row) ->
    # whether this one does (an LLM agent with MCP servers).
    shows_wire: bool | Callable[[Any], bool] = False

    def offers_wire(self, row: Any) -> bool:
        """Return whether the chat of agent `row` offers the Wire panel."""
        return self.shows_wire(row) if callable(self.shows_wire) else self.shows_wire


@dataclass(frozen=True)
class Planned:
    """When an agent row says it runs: a trigger or RRULE text, in a zone (None: the
    person's own), described in words for its page."""

    schedule: dict | str
    time_zone: str | None = None
    description: str = ""
    # What the person set up for the runs, kept on their schedule (an agent's own settings).
    config: dict = field(default_factory=dict)


def planned(spec: AgentSpec, row: Any) -> Planned | None:
    """Return when the agent's implementation says this row runs, or None."""
    if spec.schedule is None:
        return None
    if callable(spec.schedule):
        return spec.schedule(row)
    return Planned(spec.schedule)


def _check_schedule(slug: str, schedule: Any) -> None:
    if schedule is None or callable(schedule):
        return
    try:
        if isinstance(schedule, dict):
            recurrence.to_rule(schedule, "UTC", anchor=datetime.now(UTC))
        elif isinstance(schedule, str):
            recurrence.check_rule(schedule, "UTC")
        else:
            raise recurrence.RuleError("give a trigger dict or RRULE text")
    except recurrence.RuleError as error:
        raise ValueError(f"agent {slug!r}: schedule={schedule!r} cannot run: {error}") from None


REGISTRY: dict[str, AgentSpec] = {}


def agent(
    slug: str,
    *,
    name: str,
    description: str = "",
    listed: bool = True,
    available_to: Callable[[Any, Any], bool] | None = None,
    opens_conversation: bool = False,
    samples: tuple[tuple[str, str], ...] = (),
    schedule: "dict | str | Callable[[Any], Planned | None] | None" = None,
    edit_url: str = "",
    shows_wire: bool | Callable[[Any], bool] = False,
):
    """Register an agent implementation under a slug."""
    _check_schedule(slug, schedule)

    def register(obj):
        run = obj().run if inspect.isclass(obj) else obj
        if not inspect.iscoroutinefunction(run):
            raise TypeError(f"agent {slug!r} must be an async function or have an async run()")
        REGISTRY[slug] = AgentSpec(
            slug,
            name,
            description,
            run,
            listed,
            available_to,
            opens_conversation,
            samples,
            schedule,
            edit_url,
            shows_wire,
        )
        return obj

    return register


def get_agent_spec(kind: str) -> AgentSpec:
    """Return the implementation registered under `kind`."""
    try:
        return REGISTRY[kind]
    except KeyError:
        raise LookupError(f"no agent implementation is registered as {kind!r}") from None

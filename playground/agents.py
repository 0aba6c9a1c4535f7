"""The agent registry: an async function, or a class with an async `run`, under a slug.

@agent("greeter", name="Greeter", description="Asks your name, then says hello.")
async def greeter(ctx, message):
    ...
"""

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any


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


REGISTRY: dict[str, AgentSpec] = {}


def agent(
    slug: str,
    *,
    name: str,
    description: str = "",
    listed: bool = True,
    available_to: Callable[[Any, Any], bool] | None = None,
    opens_conversation: bool = False,
):
    """Register an agent implementation under a slug."""

    def register(obj):
        run = obj().run if inspect.isclass(obj) else obj
        if not inspect.iscoroutinefunction(run):
            raise TypeError(f"agent {slug!r} must be an async function or have an async run()")
        REGISTRY[slug] = AgentSpec(
            slug, name, description, run, listed, available_to, opens_conversation
        )
        return obj

    return register


def get_agent_spec(kind: str) -> AgentSpec:
    """Return the implementation registered under `kind`."""
    try:
        return REGISTRY[kind]
    except KeyError:
        raise LookupError(f"no agent implementation is registered as {kind!r}") from None

"""The toolsets a deployment offers LLM agents, by name: the agent pages list them, a turn
builds the ones its agent's config names (see playground.llm_agents.tools).

Apart from playground.llm_agents.tools so that a page can list the names without importing
pydantic_ai.
"""

from collections.abc import Callable
from typing import Any

# (the turn's TurnContext) -> a pydantic_ai AbstractToolset; not spelled out, so that listing
# the names imports neither.
ToolsetFactory = Callable[[Any], Any]

TOOLSETS: dict[str, ToolsetFactory] = {}
TITLES: dict[str, str] = {}


def register_toolset(name: str, factory: ToolsetFactory, title: str = "") -> None:
    """Offer a toolset to LLM agents under `name` (an agent's config lists the ones it uses);
    `title` is what the agent pages call it (default: the name).

    A tool whose definition has `metadata={"destructive": True}` (an MCP tool's
    `destructiveHint`) asks the person for approval before each call.
    """
    TOOLSETS[name] = factory
    TITLES[name] = title or name


def choices() -> list[tuple[str, str]]:
    """Return the (name, title) pairs of the registered toolsets, by name."""
    return sorted(TITLES.items())

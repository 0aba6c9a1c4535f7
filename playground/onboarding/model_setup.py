"""The setup agent's model, when an app above the playground offers one.

The model reads the description, asks what is unclear and proposes the configuration; the
wizard's own code (`planner.check_proposal`) checks every proposal, and the rules take over
when no model is configured or the model fails. The same app says what an agent the wizard
makes still lacks to do its work (a model, an MCP server for its platform), for the card and
for the agent's runs, and which of the person's connections its platform's servers take (to
ask for them when the agent is created). Registered by llm_agents (`apps.py`), so this layer
imports neither it nor the MCP bridge.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

NO_MODEL_APP = (
    "No model can answer agents made here: the llm_agents app is not installed on this playground."
)


@dataclass(frozen=True)
class ModelSetup:
    # The model the setup agent uses now ("provider/model"), or None when none is configured.
    chosen: Callable[[], str | None]
    # Read, ask and propose; return {"config"} (checked), {"stopped": True} or {"failed": why}.
    propose: Callable[[Any, str, str, dict[str, Any]], Awaitable[dict[str, Any]]]
    # What an agent with this configuration, answered by `kind`, lacks to work (plain words).
    missing: Callable[[dict[str, Any], str, int], list[str]]
    # The connections such an agent takes from the person through its platform's servers:
    # [{"service", "title", "server", "platform"}], asked for when the agent is created.
    connections: Callable[[dict[str, Any], str, int], list[dict[str, str]]] = lambda *_: []


REGISTERED: list[ModelSetup] = []


def register(setup: ModelSetup) -> None:
    REGISTERED.append(setup)


def chosen() -> str | None:
    """Return the model the setup agent uses ("provider/model"), or None."""
    return next((model for setup in REGISTERED if (model := setup.chosen())), None)


async def propose(ctx, choice: str, message: str, hints: dict[str, Any]) -> dict[str, Any]:
    """Let the chosen model read the message, ask and propose (see ModelSetup.propose)."""
    return await REGISTERED[0].propose(ctx, choice, message, hints)


def missing(config: dict[str, Any], kind: str, user_id: int) -> list[str]:
    """Return what an agent of `kind` with this configuration lacks to do its work."""
    if not REGISTERED:
        return [NO_MODEL_APP]
    return [line for setup in REGISTERED for line in setup.missing(config, kind, user_id)]


def connections(config: dict[str, Any], kind: str, user_id: int) -> list[dict[str, str]]:
    """Return the connections an agent of `kind` with this configuration takes from the
    person (see ModelSetup.connections), one per service."""
    wanted: dict[str, dict[str, str]] = {}
    for setup in REGISTERED:
        for needed in setup.connections(config, kind, user_id):
            wanted.setdefault(needed["service"], needed)
    return list(wanted.values())

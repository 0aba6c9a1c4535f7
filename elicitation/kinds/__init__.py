"""The closed registry of interaction kinds a part can be.

A part is dispatched by its render kind, else by its tool name; anything else is not handled
by this client and is settled at once so the run never hangs. Adding a kind costs one entry
here, one module (its contract, context and answer reading) and one template with a partial
per state.
"""

from elicitation.kinds import (
    approval,
    config_card,
    connection,
    display,
    elicitation,
    url,
    url_wait,
)
from elicitation.kinds.base import Answer, InteractionKind, Refusal

__all__ = ["KINDS", "NOT_HANDLED", "Answer", "InteractionKind", "Refusal", "kind_for", "register"]

NOT_HANDLED = {"status": "not_handled", "message": "Not handled by this client."}

KINDS: dict[str, InteractionKind] = {}
_BY_TOOL: dict[str, InteractionKind] = {}


def register(kind: InteractionKind) -> InteractionKind:
    """Add a kind to the registry (the built-in ones below; tests add their own)."""
    KINDS[kind.name] = kind
    _BY_TOOL[kind.tool_name] = kind
    return kind


for _module in (elicitation, approval, display, config_card, url, url_wait, connection):
    register(_module.KIND)


def kind_for(render_kind: str, tool_name: str) -> InteractionKind | None:
    """Return the kind that handles a part, or None when this client does not handle it."""
    return KINDS.get(render_kind) or _BY_TOOL.get(tool_name)

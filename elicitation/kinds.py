"""The closed registry of interaction kinds a part can be.

A part is dispatched by its render kind, else by its tool name; anything else is not handled
by this client and is settled at once so the run never hangs. Adding a kind costs one entry
here, one contract module and one template with a partial per state.
"""

from collections.abc import Callable
from dataclasses import dataclass

from elicitation import contract
from elicitation.config_card_contract import parse_config_card
from elicitation.display_contract import parse_display

NOT_HANDLED = {"status": "not_handled", "message": "Not handled by this client."}


@dataclass(frozen=True)
class InteractionKind:
    name: str
    tool_name: str
    # (payload, value) -> (normalized, "") or (None, reason)
    parse: Callable[[object, object], tuple[dict | None, str]]
    template: str
    # Display cards need no answer: they settle as soon as they are shown.
    settles_immediately: bool = False


def _parse_elicitation(payload: object, value: object) -> tuple[dict | None, str]:
    request = contract.parse_request(payload)
    if isinstance(request, contract.Degraded):
        return None, request.reason
    return request.to_dict(), ""


KINDS = {
    kind.name: kind
    for kind in [
        InteractionKind(
            "elicitation", "request_input", _parse_elicitation, "elicitation/kinds/elicitation.html"
        ),
        InteractionKind(
            "display",
            "show_card",
            lambda payload, value: parse_display(payload),
            "elicitation/kinds/display.html",
            settles_immediately=True,
        ),
        InteractionKind(
            "config-card", "propose_config", parse_config_card, "elicitation/kinds/config_card.html"
        ),
    ]
}
KINDS_BY_TOOL = {kind.tool_name: kind for kind in KINDS.values()}


def kind_for(render_kind: str, tool_name: str) -> InteractionKind | None:
    """Return the kind that handles a part, or None when this client does not handle it."""
    return KINDS.get(render_kind) or KINDS_BY_TOOL.get(tool_name)

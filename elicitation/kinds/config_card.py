"""The `config-card` kind: a proposed configuration shown as a card (Accept / Edit / Cancel).

Payload: a `request_input` payload whose flat schema describes the editable configuration;
the proposed values travel as the part's `value` and must themselves be a valid answer.
Rules a flat schema cannot state (an address whose format depends on another field) belong to
a validator that the asking app registers by name; the payload's `validator` names it, and an
answer it refuses keeps the card open with the errors next to the fields.
"""

from collections.abc import Callable

from elicitation import contract
from elicitation.kinds.base import (
    Answer,
    InteractionKind,
    Refusal,
    form_context,
    read_form_answer,
    request_of,
)
from elicitation.models import Part
from elicitation.widgets import answer_rows

# name -> validator(content) -> {field: problem}; empty when the configuration is valid
VALIDATORS: dict[str, Callable[[dict], dict[str, str]]] = {}


def register_validator(name: str, validator: Callable[[dict], dict[str, str]]) -> None:
    """Let config cards whose payload says `"validator": name` check whole configurations."""
    VALIDATORS[name] = validator


def parse_config_card(payload: object, value: object) -> tuple[dict | None, str]:
    """Return (normalized request, "") or (None, reason)."""
    name = payload.get("validator", "") if isinstance(payload, dict) else ""
    if name and name not in VALIDATORS:
        return None, f'no configuration validator named "{name}" in this client'
    request = contract.parse_request(payload)
    if isinstance(request, contract.Degraded):
        return None, request.reason
    checked = contract.validate_content(request, value if value is not None else {})
    if not checked.ok:
        field, problem = next(iter(checked.errors.items()))
        return None, f'proposed value for "{field}" is invalid: {problem}'
    return request.to_dict(), ""


def read_config_answer(part: Part, answer: Answer) -> dict | Refusal:
    """Accept as proposed (no fields sent), or read the edited values like any form; then let
    the registered validator check the configuration as a whole."""
    if answer.action == "accept" and not answer.fields:
        checked = contract.validate_content(request_of(part), part.value)
        if not checked.ok:
            return Refusal(422, checked.errors)
        envelope = contract.accept(checked.content, redacted=checked.redacted)
    else:
        envelope = read_form_answer(part, answer)
    validator = VALIDATORS.get(part.payload.get("validator", ""))
    if validator is None or isinstance(envelope, Refusal) or envelope["action"] != "accept":
        return envelope
    errors = validator(envelope["content"])
    return Refusal(422, errors) if errors else envelope


def config_context(part: Part, submitted: dict | None, errors: dict | None) -> dict:
    """Return the form (for Edit) and the proposed values as rows while the card is open."""
    context = form_context(part, submitted, errors)
    if errors:
        context["editing"] = True  # a refused Edit stays open with what was typed
    if "rows" not in context and isinstance(part.value, dict):
        context["rows"] = answer_rows(context["request"], part.value)
    return context


KIND = InteractionKind(
    name="config-card",
    tool_name="propose_config",
    template="elicitation/kinds/config_card.html",
    parse=parse_config_card,
    read_answer=read_config_answer,
    context=config_context,
    label="Proposal from",
)

"""The `config-card` kind: a proposed configuration shown as a card (Accept / Edit / Cancel).

Payload: a `request_input` payload whose flat schema describes the editable configuration;
the proposed values travel as the part's `value` and must themselves be a valid answer.
"""

from elicitation import contract


def parse_config_card(payload: object, value: object) -> tuple[dict | None, str]:
    """Return (normalized request, "") or (None, reason)."""
    request = contract.parse_request(payload)
    if isinstance(request, contract.Degraded):
        return None, request.reason
    checked = contract.validate_content(request, value if value is not None else {})
    if not checked.ok:
        field, problem = next(iter(checked.errors.items()))
        return None, f'proposed value for "{field}" is invalid: {problem}'
    return request.to_dict(), ""

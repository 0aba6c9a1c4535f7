"""The `approval` kind: a `tool_permission` card before an irreversible action.

Approve (once, or for the rest of the conversation), Deny or Cancel. The answer is an
ordinary accepted form with one field, `scope`, so agents read it like any other envelope.
"""

from elicitation.kinds.base import InteractionKind, parse_request, read_form_answer

SCHEMA = {
    "type": "object",
    "properties": {
        "scope": {
            "type": "string",
            "title": "Approve",
            "oneOf": [
                {"const": "once", "title": "Just this once"},
                {"const": "conversation", "title": "For the rest of this conversation"},
            ],
            "default": "once",
        }
    },
}

KIND = InteractionKind(
    name="approval",
    tool_name="request_approval",
    template="elicitation/kinds/approval.html",
    parse=parse_request,
    read_answer=read_form_answer,
    label="Approval requested by",
)

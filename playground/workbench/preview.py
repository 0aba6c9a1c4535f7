"""A payload as the chat would show it: an unsaved part, its form, and what each field becomes.

Nothing is stored. The part renders through the chat's own templates
(`elicitation.rendering`); an unsaved part's form posts to the page it is on, the workbench.
"""

import json
from dataclasses import dataclass

from django.utils import timezone

from elicitation import contract
from elicitation.kinds import Answer, Refusal, kind_for
from elicitation.mcp_wire import elicitation_create
from elicitation.models import Part
from elicitation.settle import STATE_FOR_ACTION
from elicitation.widgets import constraint_hint, control_for
from playground.runs.models import Agent, Conversation

ASKER = "Your agent"
ACTIONS = ["accept", "decline", "cancel"]
MCP_REQUEST_ID = 1  # the JSON-RPC id of the request the wire view shows

# What each control is called in the field map.
CONTROL_NAMES = {
    "checkbox": "Checkbox",
    "yesno": "Yes / No / No answer",
    "checkboxes": "Checkboxes",
    "multiselect": "Multi-select list",
    "radio": "Radio buttons",
    "select": "Drop-down",
    "number": "Number",
    "code": "Code area",
    "textarea": "Text area",
    "email": "Email",
    "url": "Web address",
    "date": "Date picker",
    "datetime-local": "Date-time picker",
    "text": "Text",
}


@dataclass(frozen=True)
class FieldRow:
    name: str
    control: str
    label: str
    rules: list[str]


def preview_part(
    payload: object, parsed: contract.ElicitationRequest | contract.Degraded, owner
) -> Part:
    """Return the unsaved part the chat would store for `payload` (`parsed` by the contract)."""
    conversation = Conversation(agent=Agent(name=ASKER), owner=owner)
    part = Part(
        conversation=conversation,
        render_kind="elicitation",
        tool_name="request_input",
        payload=payload,
        allowed_actions=ACTIONS,
    )
    if isinstance(parsed, contract.Degraded):
        part.state, part.degraded_reason = Part.State.DEGRADED, parsed.reason
    else:
        part.normalized = parsed.to_dict()
    return part


def mcp_request(payload: object) -> dict:
    """Return the `elicitation/create` request an MCP server would send with this payload."""
    fields = payload if isinstance(payload, dict) else {}
    return elicitation_create(
        fields.get("message"), fields.get("requestedSchema"), request_id=MCP_REQUEST_ID
    )


def answer_part(part: Part, answer: Answer) -> dict | Refusal:
    """Read an answer to a previewed part as the chat would; a settled answer settles it here."""
    envelope = kind_for(part.render_kind, part.tool_name).read_answer(part, answer)
    if not isinstance(envelope, Refusal):
        part.state, part.response = STATE_FOR_ACTION[envelope["action"]], envelope
        part.settled_at = timezone.now()
    return envelope


def field_map(request: contract.ElicitationRequest) -> list[FieldRow]:
    """Return each property with the control it becomes, its label and its rules."""
    return [
        FieldRow(
            field.name, CONTROL_NAMES.get(control, control), field.label, rules_of(field, control)
        )
        for field in request.fields
        for control in [control_for(field)]
    ]


def rules_of(field: contract.Field, control: str) -> list[str]:
    """Return a field's rules as short phrases, in the order a person checks them."""
    rules = ["required" if field.required else "optional"]
    if field.options is not None:
        count = len(field.options)
        rules.append(f"{count} option{'' if count == 1 else 's'}")
    if field.format and field.format != "multiline":
        rules.append(f"format {field.format}")
    # (the hint a multi-select list adds about Ctrl is for the form, not the map)
    if hint := constraint_hint(field, "checkboxes" if control == "multiselect" else control):
        # The form's sentences ("Enter 1 to 50. Use at most 2 decimal places.") as phrases.
        rules += [_phrase(sentence) for sentence in hint.rstrip(".").split(". ")]
    if field.max_length is not None and not field.min_length:
        rules.append(f"at most {field.max_length} characters")
    if field.pattern is not None:
        rules.append(f"matches {field.pattern}")
    if field.default is not None:
        rules.append(f"default {json.dumps(field.default, ensure_ascii=False)}")
    return rules


def _phrase(sentence: str) -> str:
    return sentence[:1].lower() + sentence[1:]

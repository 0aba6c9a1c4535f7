"""What an interaction kind is, and the answer reading the form kinds share.

A kind owns its behaviour: how its payload is read (`parse`), what its template needs to show a
part (`context`), and how a person's answer becomes an envelope (`read_answer`). Nothing
outside its module special-cases it.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

from elicitation import contract
from elicitation.models import Part
from elicitation.widgets import answer_rows, build_widgets
from elicitation.zones import zone_of

MAX_REPLY_CHARS = 10_000
NOT_OFFERED = "That answer is not offered for this question. Choose one of the buttons."


@dataclass(frozen=True)
class Answer:
    """What the person sent: the button they pressed, the form's fields, a prose reply."""

    action: str
    fields: dict[str, list[str]] = field(default_factory=dict)
    text: str = ""
    zone: str = "UTC"  # the person's IANA time zone, for date-time pickers


@dataclass(frozen=True)
class Refusal:
    """An answer that cannot be accepted: the HTTP status and the errors by field ("" = form)."""

    status: int
    errors: dict[str, str]


@dataclass(frozen=True)
class InteractionKind:
    name: str
    tool_name: str
    template: str
    # (payload, value) -> (normalized, "") or (None, reason)
    parse: Callable[[object, object], tuple[dict | None, str]]
    # (part, answer) -> envelope, or a refusal
    read_answer: Callable[[Part, Answer], dict | Refusal] | None = None
    # (part, submitted, errors) -> what the template needs besides the part itself
    context: Callable[[Part, dict | None, dict | None], dict] = lambda part, submitted, errors: {}
    # How the part introduces itself to screen readers: "<label> <agent name>".
    label: str = "Question from"
    # Display cards need no answer: they settle as soon as they are shown.
    settles_immediately: bool = False


def parse_request(payload: object, value: object) -> tuple[dict | None, str]:
    """Read a `request_input` payload: (normalized request, "") or (None, reason)."""
    request = contract.parse_request(payload)
    if isinstance(request, contract.Degraded):
        return None, request.reason
    return request.to_dict(), ""


def request_of(part: Part) -> contract.ElicitationRequest:
    return contract.ElicitationRequest.from_dict(part.normalized)


def form_context(part: Part, submitted: dict | None, errors: dict | None) -> dict:
    """Return the form's widgets and, once answered, the answers as readable rows."""
    request, zone = request_of(part), zone_of(part.conversation.owner)
    widgets = build_widgets(part, request, submitted, errors, zone=zone)
    context = {"request": request, "widgets": widgets}
    response = part.response or {}
    if response.get("action") == "accept":
        content, redacted = response.get("content") or {}, response.get("redacted") or ()
        context["rows"] = answer_rows(request, content, redacted, zone=zone)
    return context


def read_form_answer(part: Part, answer: Answer) -> dict | Refusal:
    """Read a form's answer: accept (validated against the schema), respond, decline, cancel."""
    if answer.action != "cancel" and answer.action not in part.allowed_actions:
        return Refusal(400, {"": NOT_OFFERED})
    if answer.action == "accept":
        request = request_of(part)
        unknown = sorted(set(answer.fields) - {field.name for field in request.fields})
        if unknown:
            return Refusal(400, {"": f"This question has no field named {unknown[0]!r}."})
        result = contract.validate_form(request, answer.fields, zone=answer.zone)
        if not result.ok:
            return Refusal(422, result.errors)
        return contract.accept(result.content, redacted=result.redacted)
    if answer.action == "respond":
        text = answer.text.strip()
        if not text:
            return Refusal(422, {"": "Write a reply first."})
        if len(text) > MAX_REPLY_CHARS:
            problem = f"That reply is too long: keep it under {MAX_REPLY_CHARS:,} characters."
            return Refusal(422, {"": problem})
        return contract.respond(text)
    return contract.decline() if answer.action == "decline" else contract.cancel()

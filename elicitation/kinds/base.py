"""What an interaction kind is, and the answer reading the form kinds share.

A kind owns its behaviour: how its payload is read (`parse`), what its template needs to show a
part (`context`), and how a person's answer becomes an envelope (`read_answer`). Nothing
outside its module special-cases it.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from elicitation import contract, uploads
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
    # Files sent for file fields, by field name (Django's UploadedFile objects), who sent
    # them, and whether the form arrived whole (a cut-off upload leaves its end out).
    uploads: Mapping[str, list] = field(default_factory=dict)
    user: Any = None
    complete: bool = True


@dataclass(frozen=True)
class Refusal:
    """An answer that cannot be accepted: the HTTP status and the errors by field ("" = form).

    `submitted` replaces what the form shows again where the answer changed it (the ids of
    the files kept from this try)."""

    status: int
    errors: dict[str, str]
    submitted: dict[str, list[str]] | None = None


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
    response = part.response or {}
    content = (response.get("content") or {}) if response.get("action") == "accept" else None
    files = uploads.files_named(_file_ids(request, submitted, content))
    widgets = build_widgets(part, request, submitted, errors, zone=zone, files=files)
    has_files = bool(uploads.file_fields(request))
    context = {"request": request, "widgets": widgets, "has_files": has_files}
    if content is not None:
        redacted = response.get("redacted") or ()
        context["rows"] = answer_rows(request, content, redacted, zone=zone, files=files)
    return context


def _file_ids(request, submitted: dict | None, content: dict | None) -> list[str]:
    """Return the ids of the files a form or chip shows (kept uploads, or answered files)."""
    ids = []
    for file_field in uploads.file_fields(request):
        ids += (submitted or {}).get(file_field.name, [])
        value = (content or {}).get(file_field.name)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict) and isinstance(item.get("file"), str):
                ids.append(item["file"])
    return ids


def read_form_answer(part: Part, answer: Answer) -> dict | Refusal:
    """Read a form's answer: accept (validated against the schema), respond, decline, cancel."""
    if answer.action != "cancel" and answer.action not in part.allowed_actions:
        return Refusal(400, {"": NOT_OFFERED})
    if answer.action == "accept":
        request = request_of(part)
        unknown = sorted(set(answer.fields) - {field.name for field in request.fields})
        if unknown:
            return Refusal(400, {"": f"This question has no field named {unknown[0]!r}."})
        if not uploads.file_fields(request):
            result = contract.validate_form(request, answer.fields, zone=answer.zone)
            if not result.ok:
                return Refusal(422, result.errors)
            return contract.accept(result.content, redacted=result.redacted)
        return _read_answer_with_files(part, request, answer)
    if answer.action == "respond":
        text = answer.text.strip()
        if not text:
            return Refusal(422, {"": "Write a reply first."})
        if len(text) > MAX_REPLY_CHARS:
            problem = f"That reply is too long: keep it under {MAX_REPLY_CHARS:,} characters."
            return Refusal(422, {"": problem})
        return contract.respond(text)
    return contract.decline() if answer.action == "decline" else contract.cancel()


def _read_answer_with_files(
    part: Part, request: contract.ElicitationRequest, answer: Answer
) -> dict | Refusal:
    """Store the sent files, then check the whole answer; a refusal keeps the stored files."""
    if not answer.complete:
        return Refusal(400, {"": uploads.CUT_OFF})
    files, problems, keep = uploads.receive(
        part, answer.user, request, answer.fields, answer.uploads
    )
    result = contract.validate_form(request, answer.fields, zone=answer.zone, files=files)
    errors = {**result.errors, **problems}  # a refused file's reason before "required"
    if errors:
        ordered = {f.name: errors[f.name] for f in request.fields if f.name in errors}
        return Refusal(
            422,
            {**({"": errors[""]} if "" in errors else {}), **ordered},
            submitted={**answer.fields, **keep},
        )
    return contract.accept(result.content, redacted=result.redacted)

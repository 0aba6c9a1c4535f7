"""Settle a part: accept (validated against its schema), decline, cancel or respond in prose.

Every refusal re-renders the part with what the person sent, so nothing they typed is lost,
and changes nothing in the database.
"""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET, require_POST

from elicitation import contract
from elicitation.forms import form_data
from elicitation.models import Part
from elicitation.rendering import render_part
from elicitation.settle import settle_part
from playground.ownership import get_part_for_user

MAX_REPLY_CHARS = 10_000
NOT_OFFERED = "That answer is not offered for this question. Choose one of the buttons."
NOTICES = {
    Part.State.DEGRADED: "This question could not be shown, so it cannot be answered.",
}
ALREADY_SETTLED = "This question was already answered, so your answer was not saved."


def _fragment(part: Part, status: int = 200, **options) -> HttpResponse:
    return HttpResponse(render_part(part, **options), status=status)


def _already_settled(part: Part) -> HttpResponse:
    return _fragment(part, status=409, notice=NOTICES.get(part.state, ALREADY_SETTLED))


@login_required
@require_POST
def settle(request: HttpRequest, part_id: int) -> HttpResponse:
    part = get_part_for_user(request.user, part_id)
    if not part.is_pending:
        return _already_settled(part)
    submitted = form_data(request.POST)
    reply = request.POST.get("text", "")

    def refuse(status: int, errors: dict[str, str]) -> HttpResponse:
        return _fragment(part, status=status, submitted=submitted, errors=errors, reply=reply)

    action = request.POST.get("action", "")
    if action != "cancel" and action not in part.allowed_actions:
        return refuse(400, {"": NOT_OFFERED})

    if action == "accept":
        question = contract.ElicitationRequest.from_dict(part.normalized)
        unknown = sorted(set(submitted) - {field.name for field in question.fields})
        if unknown:
            return refuse(400, {"": f"This question has no field named {unknown[0]!r}."})
        if part.render_kind == "config-card" and not submitted:
            result = contract.validate_content(question, part.value)  # accepted as proposed
        else:
            offset = _utc_offset(request.POST)
            result = contract.validate_form(question, submitted, utc_offset_minutes=offset)
        if not result.ok:
            return refuse(422, result.errors)
        envelope = contract.accept(result.content, redacted=result.redacted)
    elif action == "respond":
        text = reply.strip()
        if not text or len(text) > MAX_REPLY_CHARS:
            problem = (
                "Write a reply first."
                if not text
                else f"That reply is too long: keep it under {MAX_REPLY_CHARS:,} characters."
            )
            return refuse(422, {"": problem})
        envelope = contract.respond(text)
    elif action == "decline":
        envelope = contract.decline()
    else:
        envelope = contract.cancel()

    won = settle_part(part.pk, envelope, user=request.user)
    part.refresh_from_db()
    return _fragment(part) if won else _already_settled(part)  # lost: another tab answered first


@login_required
@require_GET
def edit(request: HttpRequest, part_id: int) -> HttpResponse:
    """Show a pending config card's values as a form."""
    part = get_part_for_user(request.user, part_id)
    return _fragment(part, editing=part.is_pending)


def _utc_offset(post) -> int:
    """Return the browser's offset east of UTC in minutes (sent by a hidden field), else 0."""
    try:
        offset = int(post.get("utc_offset", "0"))
    except ValueError:
        return 0
    return offset if -14 * 60 <= offset <= 14 * 60 else 0

"""Settle a part: accept (validated against its schema), decline, cancel or respond in prose."""

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


def _fragment(part: Part, status: int = 200, **options) -> HttpResponse:
    return HttpResponse(render_part(part, **options), status=status)


@login_required
@require_POST
def settle(request: HttpRequest, part_id: int) -> HttpResponse:
    part = get_part_for_user(request.user, part_id)
    submitted = form_data(request.POST)
    if not part.is_pending:
        return _fragment(part, status=409)
    action = request.POST.get("action", "")
    if action != "cancel" and action not in part.allowed_actions:
        errors = {"": "That answer is not offered for this question. Choose one of the buttons."}
        return _fragment(part, status=400, submitted=submitted, errors=errors)

    if action == "accept":
        request_obj = contract.ElicitationRequest.from_dict(part.normalized)
        if part.render_kind == "config-card" and not submitted:
            result = contract.validate_content(request_obj, part.value)  # accepted as proposed
        else:
            result = contract.validate_form(
                request_obj, submitted, utc_offset_minutes=_utc_offset(request.POST)
            )
        if not result.ok:
            return _fragment(part, status=422, submitted=submitted, errors=result.errors)
        envelope = contract.accept(result.content)
    elif action == "respond":
        text = request.POST.get("text", "").strip()
        if not text or len(text) > MAX_REPLY_CHARS:
            problem = "Write a reply first." if not text else "That reply is too long."
            return _fragment(part, status=422, submitted=submitted, errors={"": problem})
        envelope = contract.respond(text)
    elif action == "decline":
        envelope = contract.decline()
    else:
        envelope = contract.cancel()

    won = settle_part(part.pk, envelope, user=request.user)
    part.refresh_from_db()
    return _fragment(part, status=200 if won else 409)


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

"""Settle a part: its kind reads the answer, `settle_part` makes it count, the chip comes back.

Every refusal re-renders the part with what the person sent, so nothing they typed is lost,
and changes nothing in the database.
"""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.loader import render_to_string
from django.views.decorators.http import require_GET, require_POST

from elicitation.access import login_required_inline
from elicitation.kinds import Answer, Refusal, kind_for
from elicitation.models import Part
from elicitation.rendering import render_part_html, wire_context
from elicitation.settle import settle_part
from elicitation.widgets import form_data
from elicitation.zones import zone_of

NOTICES = {
    Part.State.DEGRADED: "This question could not be shown, so it cannot be answered.",
}
ALREADY_SETTLED = "This question was already answered, so your answer was not saved."


def _get_part(request: HttpRequest, part_id: int) -> Part:
    parts = Part.objects.owned_by(request.user).select_related(
        "conversation__agent", "conversation__owner__time_zone", "settled_by"
    )
    return get_object_or_404(parts, pk=part_id)


def _fragment(part: Part, status: int = 200, **options) -> HttpResponse:
    return HttpResponse(render_part_html(part, **options), status=status)


def _already_settled(part: Part) -> HttpResponse:
    return _fragment(part, status=409, notice=NOTICES.get(part.state, ALREADY_SETTLED))


@login_required_inline
@require_POST
def settle(request: HttpRequest, part_id: int) -> HttpResponse:
    part = _get_part(request, part_id)
    kind = kind_for(part.render_kind, part.tool_name)
    if not part.is_pending or kind is None or kind.read_answer is None:
        return _already_settled(part)
    answer = Answer(
        action=request.POST.get("action", ""),
        fields=form_data(request.POST),
        text=request.POST.get("text", ""),
        zone=zone_of(part.conversation.owner).key,
    )
    envelope = kind.read_answer(part, answer)
    if isinstance(envelope, Refusal):
        return _fragment(
            part,
            status=envelope.status,
            submitted=answer.fields,
            errors=envelope.errors,
            reply=answer.text,
        )
    html = settle_part(part, envelope, user=request.user)
    if html is None:  # another tab answered first
        part.refresh_from_db()
        return _already_settled(part)
    return HttpResponse(html)


@login_required_inline
@require_GET
def wire(request: HttpRequest, part_id: int) -> HttpResponse:
    """Show what travelled for one of the person's parts, and when (the chat's "Show wire")."""
    part = _get_part(request, part_id)
    return HttpResponse(render_to_string("elicitation/wire.html", wire_context(part)))


@login_required_inline
@require_GET
def edit(request: HttpRequest, part_id: int) -> HttpResponse:
    """Show a pending config card's values as a form."""
    part = _get_part(request, part_id)
    return _fragment(part, editing=part.is_pending)

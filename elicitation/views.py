"""Settle a part: its kind reads the answer, `settle_part` makes it count, the chip comes back.

Every refusal re-renders the part with what the person sent, so nothing they typed is lost,
and changes nothing in the database.
"""

from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.template.loader import render_to_string
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET, require_POST

from elicitation.access import login_required_inline
from elicitation.kinds import Answer, Refusal, kind_for
from elicitation.models import AnswerFile, Part
from elicitation.rendering import render_part_html, wire_context
from elicitation.settle import settle_part
from elicitation.uploads import discard_unsent, stream_bytes
from elicitation.widgets import form_data
from elicitation.zones import zone_of

NOTICES = {
    Part.State.DEGRADED: "This question could not be shown, so it cannot be answered.",
}
ALREADY_SETTLED = "This question was already answered, so your answer was not saved."
SOMEONE_ELSE = "Someone other than you must answer this question, so your answer was not saved."


def _get_part(request: HttpRequest, part_id: int) -> Part:
    """Return a part the person may see (their own, or routed to them); anyone else's is 404."""
    # (Who settled it is read when a settled one is shown: a join fewer for the usual answer.)
    parts = Part.objects.select_related("conversation__agent", "conversation__owner__time_zone")
    part = parts.filter(pk=part_id).first()
    # Their own conversation's, as most are, is known with the part; the routes are looked up
    # only for the rest (through them, the lookup took half of an answer's time in the view).
    if part is None or (
        part.conversation.owner_id != request.user.pk
        and not Part.objects.visible_to(request.user).filter(pk=part.pk).exists()
    ):
        raise Http404("No such question.")
    return part


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
    if not part.may_answer(request.user):
        return _fragment(part, status=409, disabled=True, notice=SOMEONE_ELSE)
    multipart = request.content_type == "multipart/form-data"
    answer = Answer(
        action=request.POST.get("action", ""),
        fields=form_data(request.POST),
        text=request.POST.get("text", ""),
        zone=zone_of(part.conversation.owner).key,
        uploads=form_data(request.FILES),
        user=request.user,
        complete=not multipart or request.POST.get("form_end") == "1",
    )
    envelope = kind.read_answer(part, answer)
    if isinstance(envelope, Refusal):
        return _fragment(
            part,
            status=envelope.status,
            submitted=envelope.submitted or answer.fields,
            errors=envelope.errors,
            reply=answer.text,
        )
    html = settle_part(part, envelope, user=request.user)
    if html is None:  # another tab answered first: what this one uploaded goes
        discard_unsent(part)
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


# Never shown as a page from our origin: a download, typed as stored, in a sandbox.
_FILE_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; sandbox",
    "Cache-Control": "private, no-store",
}


def _get_file(request: HttpRequest, file_id: str) -> AnswerFile:
    """Return a file the person may fetch (see `AnswerFile.objects.visible_to`); else 404."""
    files = AnswerFile.objects.visible_to(request.user)
    return get_object_or_404(files, pk=file_id)


def file_response(answer_file: AnswerFile, *, preview: bool = False) -> StreamingHttpResponse:
    """Return a file's bytes as a download (a preview: the PNG made from it, inline), streamed
    as they are read from storage."""
    content = stream_bytes(answer_file, preview=preview)
    if preview:
        response = StreamingHttpResponse(content, content_type="image/png")
        response["Content-Disposition"] = "inline"
    else:
        response = StreamingHttpResponse(content, content_type=answer_file.content_type)
        response["Content-Disposition"] = content_disposition_header(True, answer_file.name)
        response["Content-Length"] = str(answer_file.size)
    for header, value in _FILE_HEADERS.items():
        response[header] = value
    return response


@login_required_inline
@require_GET
def download_file(request: HttpRequest, file_id: str) -> HttpResponse:
    """Send an attached file to someone who may see it, as a download."""
    return file_response(_get_file(request, file_id))


@login_required_inline
@require_GET
def preview_file(request: HttpRequest, file_id: str) -> HttpResponse:
    """Send the preview image of an attached raster image; 404 for any other file."""
    answer_file = _get_file(request, file_id)
    if not answer_file.preview_as:
        return HttpResponse("No preview for this file.", status=404, content_type="text/plain")
    return file_response(answer_file, preview=True)

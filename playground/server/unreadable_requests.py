"""Refuse an htmx request the server cannot read with a sentence, never an error page.

A form too big for DATA_UPLOAD_MAX_MEMORY_SIZE, with too many fields, or cut off or malformed
would make Django answer 400 with its error page, and htmx swaps a 400 into its target (the
chat's refused answers are 400/422 fragments): the workbench, a question or the composer would
become that page. Here such a request gets 413 or 400 with nothing to swap and a
`requestRefused` event carrying the sentence, which static/playground.js shows beside the form
that sent it; what the person typed stays where it was.

It reads the form before the CSRF check does (which would raise the same errors).
"""

from asgiref.sync import iscoroutinefunction
from django.conf import settings
from django.core.exceptions import (
    BadRequest,
    RequestDataTooBig,
    SuspiciousOperation,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.http import HttpRequest, HttpResponse, UnreadablePostError
from django.http.multipartparser import MultiPartParserError
from django.utils.decorators import sync_and_async_middleware

from elicitation.access import refused

TOO_BIG = (
    "This form is {size} bytes, and the server reads at most {limit} KiB in one request, "
    "so nothing was sent. What you typed is still here: shorten it and try again."
)
TOO_MANY_FIELDS = (
    "This form has more fields than the server reads in one request, so nothing was sent. "
    "What you typed is still here."
)
UNREADABLE = (
    "The server could not read this form (it arrived cut off or malformed), so nothing was "
    "sent. What you typed is still here: try again."
)


@sync_and_async_middleware
def refuse_unreadable_htmx_posts(get_response):
    """Answer an htmx POST whose form cannot be read with a refusal it can show in place."""
    if iscoroutinefunction(get_response):

        async def middleware(request: HttpRequest) -> HttpResponse:
            return _refusal(request) or await get_response(request)

    else:

        def middleware(request: HttpRequest) -> HttpResponse:
            return _refusal(request) or get_response(request)

    return middleware


def _refusal(request: HttpRequest) -> HttpResponse | None:
    if request.method != "POST" or request.headers.get("HX-Request") != "true":
        return None
    try:
        request.POST  # noqa: B018 - parsed once here; the views read the parsed form
    except RequestDataTooBig:
        size = f"{int(request.META.get('CONTENT_LENGTH') or 0):,}"
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE // 1024
        return refused(TOO_BIG.format(size=size, limit=limit), status=413)
    except (TooManyFieldsSent, TooManyFilesSent):
        return refused(TOO_MANY_FIELDS, status=413)
    except (BadRequest, SuspiciousOperation, MultiPartParserError, UnreadablePostError):
        return refused(UNREADABLE, status=400)
    return None

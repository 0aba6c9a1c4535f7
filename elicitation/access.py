"""Refused requests from inside the chat: said inline, never a page swapped in.

A logged-out htmx request gets 401 (the page adds a login link). Any other refusal meant for
the person is `refused(message, status=...)`: nothing is swapped, and the `requestRefused`
event carries the sentence, which static/playground.js shows beside the form that sent it.
"""

from collections.abc import Callable
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.utils.html import format_html
from django_htmx.http import reswap, trigger_client_event

LOGGED_OUT = "You were logged out. Log in again — your answer is kept."


def login_required_inline(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Like `login_required`, but an htmx request gets 401 instead of a redirect to follow.

    htmx follows a redirect and would swap the whole login page into the chat; the page
    shows the 401 as a message with a login link instead, keeping what was typed.
    """
    guarded = login_required(view)

    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if request.headers.get("HX-Request") and not request.user.is_authenticated:
            return HttpResponse(LOGGED_OUT, status=401, content_type="text/plain")
        return guarded(request, *args, **kwargs)

    return wrapped


def refused(message: str, *, status: int) -> HttpResponse:
    """Return a refusal that replaces nothing on the page and says `message` beside the form."""
    response = HttpResponse(format_html('<p class="error" role="alert">{}</p>', message))
    response.status_code = status
    return trigger_client_event(reswap(response, "none"), "requestRefused", {"message": message})

"""Logged-out requests from inside the chat: said inline, never a login page swapped in."""

from collections.abc import Callable
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse

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

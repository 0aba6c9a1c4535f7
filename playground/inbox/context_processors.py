"""The header's count of waiting questions, on every page a signed-in person sees."""

from functools import cache

from django.http import HttpRequest

from playground.inbox.queries import count_for


def inbox_count(request: HttpRequest) -> dict:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    # A callable (templates call it), counted once and only by a page that shows the header.
    return {"inbox_count": cache(lambda: count_for(user))}

"""A person's preferences: the time zone their dates are shown and read in.

The zone is picked up from the browser when the person logs in (a hidden field on the login
form) or, for a session older than that, by one small POST from the page; after that only the
settings page changes it. Every page shows times in the zone of the person reading it
(`viewer_zone`); a conversation's questions and answers use its owner's zone.
"""

from asgiref.sync import iscoroutinefunction, sync_to_async
from django.contrib.auth.decorators import login_required
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.decorators import sync_and_async_middleware
from django.views.decorators.http import require_http_methods, require_POST

from elicitation.zones import knows_zone, set_zone, zone_names, zone_of
from playground.server.health import database_unavailable

DETECTED_FIELD = "time_zone"


@sync_and_async_middleware
def viewer_zone(get_response):
    """Show the times of every page (the admin, API tokens) in the reader's own zone.

    htmx requests are skipped: they answer with a conversation's fragments, which are rendered
    in the conversation owner's zone whoever asks (so they cost no query for the zone).
    """
    if not iscoroutinefunction(get_response):

        def sync_middleware(request: HttpRequest) -> HttpResponse:
            if request.htmx:
                return get_response(request)
            try:
                zone = zone_of(request.user)
            except (OperationalError, InterfaceError) as error:
                return database_unavailable(request, error)
            with timezone.override(zone):
                return get_response(request)

        return sync_middleware

    async def middleware(request: HttpRequest) -> HttpResponse:
        if request.htmx:
            return await get_response(request)
        try:
            # The same user object the templates use, so its zone is read once.
            zone = await sync_to_async(zone_of)(request.user)
        except (OperationalError, InterfaceError) as error:  # the session's query, here first
            return database_unavailable(request, error)
        with timezone.override(zone):
            return await get_response(request)

    return middleware


def remember_browser_zone(sender, request, user, **kwargs) -> None:
    """On login, keep the browser's zone if the person has none yet (`user_logged_in`)."""
    if request is not None and not knows_zone(user):
        set_zone(user, request.POST.get(DETECTED_FIELD, ""))


@login_required
@require_POST
def detected_zone(request: HttpRequest) -> HttpResponse:
    """Keep the zone the browser reports, unless the person already has one."""
    if not knows_zone(request.user):
        set_zone(request.user, request.POST.get(DETECTED_FIELD, ""))
    return HttpResponse(status=204)


@login_required
@require_http_methods(["GET", "POST"])
def settings_page(request: HttpRequest) -> HttpResponse:
    """Show and change the person's time zone."""
    saved = error = ""
    if request.method == "POST":
        name = request.POST.get(DETECTED_FIELD, "")
        if set_zone(request.user, name):
            saved = f"Saved: dates and times now show in {name} time."
        else:
            error = "Choose a time zone from the list."
    return TemplateResponse(
        request,
        "playground/settings.html",
        {
            "zone": zone_of(request.user).key,
            "zones": zone_names(),
            "saved": saved,
            "error": error,
        },
        status=422 if error else 200,
    )

"""How the service reports on itself: `/healthz`, and a 503 page while the database is down."""

import asyncio
import logging

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import InterfaceError, OperationalError, connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils.deprecation import MiddlewareMixin
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

logger = logging.getLogger(__name__)

CHECK_TIMEOUT = 3.0


def _check_database() -> None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    finally:
        connection.close()  # a health probe every few seconds must not pile up connections


async def _check_channel_layer() -> None:
    # A round trip through the same layer the pushes use (Redis in scale-out).
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.send(channel, {"type": "health.ping"})
    message = await layer.receive(channel)
    if message.get("type") != "health.ping":
        raise RuntimeError("the channel layer returned a different message")


async def _outcome(check) -> str:
    try:
        async with asyncio.timeout(CHECK_TIMEOUT):
            await check()
    except Exception as error:
        logger.warning("health check %s failed: %s", check.__name__, error)
        return f"failed: {type(error).__name__}: {error}"[:300]
    return "ok"


@never_cache
@require_safe
async def healthz(request: HttpRequest) -> JsonResponse:
    """Return 200 when the database and the channel layer answer, else 503 naming the failure."""
    checks = {
        "database": await _outcome(sync_to_async(_check_database, thread_sensitive=False)),
        "channel_layer": await _outcome(_check_channel_layer),
    }
    healthy = all(outcome == "ok" for outcome in checks.values())
    return JsonResponse(
        {"status": "ok" if healthy else "unavailable", "checks": checks},
        status=200 if healthy else 503,
    )


class DatabaseUnavailableMiddleware(MiddlewareMixin):
    """Answer a request that lost the database with a plain 503 page instead of a 500.

    Writes happen in transactions (a turn with its conversation, a settlement in one UPDATE),
    so a request that fails here has written nothing half-way.
    """

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, OperationalError | InterfaceError):
            return None
        logger.error("database unavailable: %s %s: %s", request.method, request.path, exception)
        # Rendered without the request: the page must not touch the session or the user.
        response = HttpResponse(render_to_string("503.html"), status=503)
        response["Retry-After"] = "10"
        return response

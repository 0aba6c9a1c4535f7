"""How the service reports on itself: the readiness probe (`/healthz`), the liveness probe
(`/livez`), and a 503 page while the database is down (said beside the form instead, for a form
the page sent with htmx)."""

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable

from asgiref.sync import async_to_sync, iscoroutinefunction, sync_to_async
from channels.layers import get_channel_layer
from django.db import InterfaceError, OperationalError, connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils.decorators import sync_and_async_middleware
from django.utils.deprecation import MiddlewareMixin
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from elicitation.access import refused
from playground.server import database_deadline
from playground.server.layer_channels import inbox

logger = logging.getLogger(__name__)

CHECK_TIMEOUT = 3.0
UNAVAILABLE = (
    "We can't reach the database right now. What you typed is still here: in a few seconds, "
    "reload to see whether it arrived before you send it again."
)


class PreviousCheckWaiting(Exception):
    """The previous database check has not had its answer yet."""


# One database check at a time: while the database is silent, a probe every few seconds must
# not leave one more blocked thread, holding one more pool connection, behind each time.
_database_check = threading.Lock()


def _check_database() -> None:
    if not _database_check.acquire(blocking=False):
        raise PreviousCheckWaiting
    try:
        # A silent database: the check's connection is cut at the deadline, which frees its
        # thread (and the lock) for the next check.
        with database_deadline.allowance(CHECK_TIMEOUT), connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    finally:
        connection.close()  # back to the pool (or closed), not kept by this thread
        _database_check.release()


async def _check_channel_layer() -> None:
    # A round trip through the same layer the pushes use (Redis in scale-out).
    layer = get_channel_layer()
    channel = await layer.new_channel()
    async with inbox(layer, channel) as next_message:
        await layer.send(channel, {"type": "health.ping"})
        message = await next_message()
    if message.get("type") != "health.ping":
        raise RuntimeError("the channel layer returned a different message")


def _reason(error: Exception) -> str:
    """Say why a check failed in a few words: an error's own text can name hosts and users."""
    if isinstance(error, TimeoutError):
        return f"no answer within {CHECK_TIMEOUT:g} s"
    if isinstance(error, PreviousCheckWaiting):
        return "the previous check is still waiting for an answer"
    return f"{type(error).__name__} (details in the server log)"


async def _outcome(check: Callable[[], Awaitable[None]], name: str) -> str:
    try:
        async with asyncio.timeout(CHECK_TIMEOUT):
            await check()
    except Exception as error:
        logger.warning("health check of the %s failed: %r", name, error)
        return f"failed: {_reason(error)}"
    return "ok"


@never_cache
@require_safe
async def healthz(request: HttpRequest) -> JsonResponse:
    """Return 200 when the database and the channel layer answer, else 503 saying which failed."""
    checks = {
        "database": await _outcome(
            sync_to_async(_check_database, thread_sensitive=False), "database"
        ),
        "channel_layer": await _outcome(_check_channel_layer, "channel layer"),
    }
    healthy = all(outcome == "ok" for outcome in checks.values())
    return JsonResponse(
        {"status": "ok" if healthy else "unavailable", "checks": checks},
        status=200 if healthy else 503,
    )


@never_cache
@require_safe
async def livez(request: HttpRequest) -> JsonResponse:
    """Return 200 while this process serves requests; touches neither database nor Redis."""
    return JsonResponse({"status": "ok"})


PROBES = {"/healthz": healthz, "/livez": livez}


@sync_and_async_middleware
def answer_probes(get_response):
    """Answer the probes before any other middleware looks at the request.

    Orchestrators probe a process by its own IP address, which ALLOWED_HOSTS rightly does not
    list, and over plain HTTP, which production redirects to HTTPS. (Our server sends them
    down the async chain: see playground.http_handler.)
    """
    if not iscoroutinefunction(get_response):

        def sync_middleware(request: HttpRequest) -> HttpResponse:
            probe = PROBES.get(request.path_info)
            return async_to_sync(probe)(request) if probe else get_response(request)

        return sync_middleware

    async def middleware(request: HttpRequest) -> HttpResponse:
        probe = PROBES.get(request.path_info)
        if probe is not None:
            return await probe(request)
        return await get_response(request)

    return middleware


class DatabaseUnavailableMiddleware(MiddlewareMixin):
    """Answer a request that lost the database with a plain 503 page instead of a 500.

    Writes happen in transactions (a turn with its conversation, a settlement in one UPDATE),
    so a request that fails here has written nothing half-way.
    """

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, OperationalError | InterfaceError):
            return None
        return database_unavailable(request, exception)


def database_unavailable(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Return the 503 for a request that lost the database: the plain page, or for an htmx
    request the sentence the page shows beside the form that sent it."""
    logger.error("database unavailable: %s %s: %s", request.method, request.path, exception)
    if request.headers.get("HX-Request"):  # no page swapped into the chat
        response = refused(UNAVAILABLE, status=503)
    else:
        # Rendered without the request: the page must not touch the session or the user.
        response = HttpResponse(render_to_string("503.html"), status=503)
    response["Retry-After"] = "10"
    return response

"""Django's ASGI handler, except that a request for an async view gets no thread of its own.

Django gives each request a thread for its sync parts (middleware hops, signal receivers),
kept until the response is sent. A sync view runs on it. An async view that waits (an API
long-poll, and any wait to come) would hold it idle for the whole wait: a thousand waiting
calls, a thousand threads. So a request for an async view skips it, and its few brief sync
hops share asgiref's one thread for sync work outside a request.

That thread is shared by everything (websocket lookups, agent runs), so nothing may hold it
for long: every middleware must be async-capable. A sync-only middleware is called on that
thread and runs the rest of the request through `async_to_sync`, holding the thread for as
long as the view waits: one long-poll then stalled the whole server.
tests/test_waiting_blocks_nothing.py proves that a wait holds nothing else up.

A request for a sync view runs the middleware in their sync form, in one hop to one of a pool
of long-lived threads, each keeping its database connection (SQLite's; a pooled PostgreSQL
connection goes back to the pool after each request, as before). Django's async chain hops
to a thread twice for each middleware written the sync way (`process_request`,
`process_response`): about twenty hops a request, each a thread wake-up, which came to
several milliseconds of every answer's and message's POST. Static files, like async views,
take the async chain: ServeStatic serves them with no thread.
"""

import functools
from concurrent.futures import ThreadPoolExecutor

import django
from asgiref.sync import async_to_sync, iscoroutinefunction, sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.base import BaseHandler
from django.db import close_old_connections
from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, resolve
from django.utils.decorators import sync_and_async_middleware
from servestatic.middleware import ServeStaticMiddleware

from playground.server.health import PROBES

ASYNC_VIEW = "playground.async_view"  # the scope's key: does this request go to an async view?


class AsyncViewsWithoutThreadHandler(ASGIHandler):
    def __init__(self) -> None:
        super().__init__()
        self.sync_views = BaseHandler()
        self.sync_views.load_middleware(is_async=False)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and _serves_async_view(scope):
            await self.handle({**scope, ASYNC_VIEW: True}, receive, send)
        else:
            await super().__call__(scope, receive, send)

    async def get_response_async(self, request: HttpRequest) -> HttpResponse:
        if request.scope.get(ASYNC_VIEW):
            return await super().get_response_async(request)
        return await sync_to_async(
            self._sync_response, thread_sensitive=False, executor=SYNC_VIEW_THREADS
        )(request)

    def _sync_response(self, request: HttpRequest) -> HttpResponse:
        # As Django does around each request, on the thread that runs it: a connection that
        # broke or outlived CONN_MAX_AGE is closed (a kept one stays for the next request).
        close_old_connections()
        try:
            return self.sync_views.get_response(request)
        finally:
            close_old_connections()


# Sync views run on long-lived threads, each keeping its database connection where the
# settings keep one (SQLite's: opening it took most of a millisecond of every request, on a
# thread of its own each). Threads are made as requests need them, up to this many at once.
SYNC_VIEW_THREADS = ThreadPoolExecutor(max_workers=64, thread_name_prefix="sync-view")


def _serves_async_view(scope) -> bool:
    path = scope["path"].removeprefix(scope.get("root_path", ""))
    if path in PROBES or path.startswith(settings.STATIC_URL):
        return True  # answered by async code in the middleware (see serve_static)
    try:
        return iscoroutinefunction(resolve(path).func)
    except Resolver404:
        return False


@sync_and_async_middleware
def serve_static(get_response):
    """ServeStatic's middleware, which is async only, in a chain of either kind.

    In a sync chain it would make the chain async from there on, hops and all; there it passes
    every request that is not for a static file straight on (the server sends those down the
    async chain; Django's test client, which is sync, has them served here).
    """
    if iscoroutinefunction(get_response):
        return ServeStaticMiddleware(get_response)

    @functools.cache
    def serve():  # made at the first static file: it lists them all, and our server sends none
        return async_to_sync(ServeStaticMiddleware(sync_to_async(get_response)))

    def middleware(request: HttpRequest) -> HttpResponse:
        if request.path_info.startswith(settings.STATIC_URL):
            return serve()(request)
        return get_response(request)

    return middleware


def get_asgi_application() -> AsyncViewsWithoutThreadHandler:
    """Return the HTTP application, like Django's function of the same name."""
    django.setup(set_prefix=False)
    return AsyncViewsWithoutThreadHandler()

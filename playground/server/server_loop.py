"""The server's event loop, remembered so work started elsewhere can be handed to it.

With the in-memory channel layer a `group_send` made from another thread is not delivered
until the server's loop wakes for some other reason (seen: 0.8-1 s late on an idle loop), so
pushes and the embedded turn runner are scheduled onto this loop instead. This module knows
nothing of the app: the start-up work is handed in by `asgi.py` or `manage.py serve`.
"""

import asyncio
import contextvars
import logging
from collections.abc import Callable, Coroutine

logger = logging.getLogger(__name__)

_loop: asyncio.AbstractEventLoop | None = None
_background: set[asyncio.Task] = set()  # keeps tasks referenced until they finish


def get() -> asyncio.AbstractEventLoop | None:
    """Return the server's running loop, or None outside a server (commands, plain tests)."""
    if _loop is not None and _loop.is_running():
        return _loop
    return None


def adopt(loop: asyncio.AbstractEventLoop, startup: Callable[[], Coroutine] | None) -> None:
    """Record the server's loop and start `startup()` on it, once per loop."""
    global _loop
    if loop is _loop:
        return
    _loop = loop
    if startup is not None:
        _start(loop, startup())


def submit(coro: Coroutine) -> bool:
    """Schedule a coroutine on the server's loop from any thread; False when there is none."""
    loop = get()
    if loop is None:
        coro.close()
        return False
    loop.call_soon_threadsafe(_start, loop, coro)
    return True


def call_soon(callback: Callable[[], None]) -> bool:
    """Call `callback` on the server's loop from any thread; False when there is none."""
    loop = get()
    if loop is None:
        return False
    loop.call_soon_threadsafe(callback)
    return True


def _start(loop: asyncio.AbstractEventLoop, coro: Coroutine) -> None:
    # A fresh context: the caller's (a request's) would tie the task's database calls to
    # that request's worker thread, which is gone once the response is sent.
    task = loop.create_task(coro, context=contextvars.Context())
    _background.add(task)
    task.add_done_callback(_finished)


def _finished(task: asyncio.Task) -> None:
    _background.discard(task)
    if not task.cancelled() and task.exception() is not None:
        logger.error("background work on the server loop failed", exc_info=task.exception())


def remember_loop(app, startup: Callable[[], Coroutine] | None = None):
    """Wrap an ASGI app so the loop that serves it is adopted at its first connection.

    `manage.py serve` adopts the loop before the first connection; this covers servers
    started another way (`daphne playground.asgi:application`, uvicorn).
    """

    async def wrapper(scope, receive, send):
        adopt(asyncio.get_running_loop(), startup)
        return await app(scope, receive, send)

    return wrapper

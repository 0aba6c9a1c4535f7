"""The server's event loop, remembered so work started elsewhere can be handed to it.

With the in-memory channel layer a `group_send` made from another thread is not delivered
until the server's loop wakes for some other reason (seen: 0.8-1 s late on an idle loop), so
pushes and in-process agent runs are scheduled onto this loop instead.
"""

import asyncio
import contextvars
import logging
import sys
from collections.abc import Coroutine

logger = logging.getLogger(__name__)

_loop: asyncio.AbstractEventLoop | None = None
_started: set[asyncio.AbstractEventLoop] = set()
_background: set[asyncio.Task] = set()  # keeps tasks referenced until they finish


def get() -> asyncio.AbstractEventLoop | None:
    """Return the server's running loop, or None outside a server (commands, plain tests)."""
    if _loop is not None and _loop.is_running():
        return _loop
    return None


def on_server_loop() -> bool:
    """Return True when called from the server's loop thread."""
    try:
        return asyncio.get_running_loop() is get()
    except RuntimeError:
        return False


def submit(coro: Coroutine) -> bool:
    """Schedule a coroutine on the server's loop from any thread; False when there is none."""
    loop = get()
    if loop is None:
        coro.close()
        return False
    loop.call_soon_threadsafe(_start, loop, coro)
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


def adopt(loop: asyncio.AbstractEventLoop) -> None:
    """Record the server's loop and run the start-up work once on it."""
    global _loop
    if loop in _started:
        return
    _started.add(loop)
    _loop = loop
    from playground.runtime import recover_turns_at_startup

    _start(loop, recover_turns_at_startup())


def adopt_daphne_loop() -> None:
    """Under daphne, adopt its loop as soon as it runs, before any connection arrives."""
    daphne_server = sys.modules.get("daphne.server")
    if daphne_server is not None:
        loop = daphne_server.twisted_loop
        loop.call_soon_threadsafe(adopt, loop)


def remember_loop(app):
    """Wrap an ASGI app so the loop that serves it is known (other servers than daphne)."""

    async def wrapper(scope, receive, send):
        adopt(asyncio.get_running_loop())
        return await app(scope, receive, send)

    return wrapper

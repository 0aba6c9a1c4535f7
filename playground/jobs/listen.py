"""The one LISTEN connection of a process: PostgreSQL's NOTIFY, delivered with a commit, wakes
other processes. Whoever needs a channel subscribes to it; the process listens on one
connection for all of them."""

import asyncio
import logging
import threading
from collections.abc import Callable

import psycopg
from django.db import connection

logger = logging.getLogger(__name__)

Callback = Callable[[str | None], None]

_lock = threading.Lock()
_subscribed: dict[str, list[Callback]] = {}  # channel → callbacks, for the whole process
_task: asyncio.Task | None = None  # the one listening task, on the loop that last started it


def available() -> bool:
    return connection.vendor == "postgresql"


def connection_params() -> dict:
    """Connection options for a listener: Django's own, minus its sync cursor and adapters."""
    params = connection.get_connection_params()
    return {key: value for key, value in params.items() if key not in ("cursor_factory", "context")}


def subscribe(callbacks: dict[str, Callback]) -> Callable[[], None]:
    """Call each channel's callback with the payload of every NOTIFY on it, and with None after
    each (re)connection: something may have changed while nobody listened. Call from a running
    loop; callbacks run on the listening loop's thread. Subscribing a callback already
    subscribed changes nothing (but restarts a listener whose loop has ended). Return the
    unsubscribe."""
    with _lock:
        added = False
        for channel, callback in callbacks.items():
            if callback not in _subscribed.setdefault(channel, []):
                _subscribed[channel].append(callback)
                added = True
        if added or not _listening():
            _restart()

    def unsubscribe() -> None:
        with _lock:
            for channel, callback in callbacks.items():
                if callback in _subscribed.get(channel, []):
                    _subscribed[channel].remove(callback)
                    if not _subscribed[channel]:
                        del _subscribed[channel]
            _restart()

    return unsubscribe


def _listening() -> bool:
    return _task is not None and not _task.done() and _task.get_loop().is_running()


def _restart() -> None:
    """Listen on the channels subscribed now, on a new connection (holding _lock)."""
    global _task
    if _task is not None and not _task.done() and not _task.get_loop().is_closed():
        _task.get_loop().call_soon_threadsafe(_task.cancel)
    _task = None
    if _subscribed:
        channels = {channel: list(callbacks) for channel, callbacks in _subscribed.items()}
        _task = asyncio.get_running_loop().create_task(_listen(channels))


async def _listen(channels: dict[str, list[Callback]], retry_seconds: float = 1.0) -> None:
    """Deliver every NOTIFY on `channels` until cancelled; reconnect after a lost database."""
    params = await asyncio.to_thread(connection_params)
    while True:
        try:
            async with await psycopg.AsyncConnection.connect(autocommit=True, **params) as db:
                for channel in channels:
                    await db.execute(f"LISTEN {channel}")
                for callbacks in channels.values():
                    for callback in callbacks:
                        callback(None)
                async for notice in db.notifies():
                    for callback in channels[notice.channel]:
                        callback(notice.payload)
        except psycopg.Error as error:
            logger.warning("listening on %s failed (%s); retrying", ", ".join(channels), error)
        await asyncio.sleep(retry_seconds)

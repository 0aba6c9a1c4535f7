"""Long-polling without holding anything: wait on a channel-layer group, not on the database.

A waiting API call first does its lookups on a pooled thread that gives its database
connection back at once (`in_db`), then joins a group and sleeps until a message arrives or
time runs out: no thread, no connection. A settled external question is announced to its
part's group; a person's message reaches the conversation's group as the chat's own push.
"""

import asyncio
import logging
from collections.abc import Awaitable, Callable
from functools import wraps

from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.db import connections

from api.external import KIND
from playground import server_loop

logger = logging.getLogger(__name__)


def in_db[**P, R](fn: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """Run a database function on a pooled thread, closing its connection when it returns."""

    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        finally:
            connections.close_all()

    return wraps(fn)(sync_to_async(run, thread_sensitive=False))


def part_group(part_id: int) -> str:
    return f"part-{part_id}"


async def wait_in_group[T](group: str, check: Callable[[], Awaitable[T]], seconds: float) -> T:
    """Return `check()` once it is truthy, or its last result after `seconds`.

    `check` runs again after each message to the group, so a change that lands between the
    first check and joining the group is not missed (the group is joined before that check).
    """
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(group, channel)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    try:
        while not (result := await check()) and (left := deadline - loop.time()) > 0:
            try:
                await asyncio.wait_for(layer.receive(channel), timeout=left)
            except TimeoutError:
                pass
        return result
    finally:
        await layer.group_discard(group, channel)


def wake_waiters(sender, part, html: str, **kwargs) -> None:
    """After an external agent's question settles: wake the API calls waiting for it."""
    if part.conversation.agent.kind != KIND:
        return
    if not server_loop.submit(_announce(part.pk)):
        async_to_sync(_announce)(part.pk)


async def _announce(part_id: int) -> None:
    try:
        await get_channel_layer().group_send(part_group(part_id), {"type": "part.settled"})
    except Exception:
        # Best effort: a waiter also sees the settlement when its wait runs out.
        logger.warning("waking the waiters of part %s failed", part_id, exc_info=True)

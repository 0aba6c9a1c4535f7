"""Wait for a part to settle without holding a thread or a connection: on a channel-layer group.

Whoever waits (an API long-poll, a held MCP session) joins the part's group; when the part
settles, any web process announces it there, so the answer reaches the waiter wherever it runs.
"""

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from playground.server import server_loop
from playground.server.layer_channels import inbox

logger = logging.getLogger(__name__)


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
        async with inbox(layer, channel) as next_message:
            while not (result := await check()) and (left := deadline - loop.time()) > 0:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(left):
                        await next_message()
            return result
    finally:
        await layer.group_discard(group, channel)


def announce_settled(part_id: int) -> None:
    """After a part settled: wake whoever waits on its group (from any thread)."""
    if not server_loop.submit(_announce(part_id)):
        async_to_sync(_announce)(part_id)


async def _announce(part_id: int) -> None:
    try:
        await get_channel_layer().group_send(part_group(part_id), {"type": "part.settled"})
    except Exception:
        # Best effort: a waiter also sees the settlement when its wait runs out.
        logger.warning("waking the waiters of part %s failed", part_id, exc_info=True)

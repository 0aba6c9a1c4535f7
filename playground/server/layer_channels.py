"""Channels of a process's own on the channel layer, and how they end.

The Redis pub/sub layer subscribes a channel when it is made and unsubscribes it only when a
receive waiting on it is cancelled (channels-redis#276): a channel left with no receive
waiting stays subscribed, in Redis and in this process, for good. Whatever makes a channel
ends it here; the in-memory layer needs none of it and takes no harm.
"""

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable


@contextlib.asynccontextmanager
async def inbox(layer, channel: str) -> AsyncIterator[Callable[[], Awaitable[dict]]]:
    """Yield `next_message()`, which returns the channel's next message; end the channel on
    leaving. One receive is always waiting, so a timeout around `next_message` loses none."""
    waiting = asyncio.ensure_future(layer.receive(channel))

    async def next_message() -> dict:
        nonlocal waiting
        await asyncio.wait([waiting])
        message, waiting = waiting.result(), asyncio.ensure_future(layer.receive(channel))
        return message

    try:
        yield next_message
    finally:
        await release(layer, channel, waiting)


async def release(layer, channel: str, waiting: asyncio.Future | None = None) -> None:
    """End `channel` by cancelling a receive waiting on it (`waiting`, or one started here);
    a message it had not read yet is dropped."""
    waiting = waiting or asyncio.ensure_future(layer.receive(channel))
    while True:
        await asyncio.sleep(0)  # a receive cancelled before it ran would end nothing
        if not waiting.done():
            waiting.cancel()
            await asyncio.gather(waiting, return_exceptions=True)
            return
        if waiting.cancelled() or waiting.exception() is not None:
            return  # the layer failed (Redis down): there is nothing to wait on
        waiting = asyncio.ensure_future(layer.receive(channel))  # it read a message: again

"""Close this web process's conversation sockets when its connection to Redis breaks.

Pushes cross processes through Redis pub/sub, which keeps nothing for a subscriber that was
not connected: a tab whose process lost Redis for a moment would miss what was pushed
meanwhile and never know. So the tabs are closed instead; each reconnects (htmx retries) and
is sent its whole conversation once Redis answers again, as after any reconnect.

A connection of its own, subscribed and idle, notices a restart or a closed socket at once
and costs nothing while Redis is fine; it does not retry inside redis-py, where a quick
restart would go unseen.
"""

import asyncio
import logging
import weakref

from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

RETRY_SECONDS = 1.0
# daphne lets an application close with 1000 or 3000-4999 only, and htmx's ws extension
# retries 1006, 1011-1013: static/playground.js reconnects on this code.
CLOSE_CODE = 4012

open_sockets: weakref.WeakSet = weakref.WeakSet()  # this process's conversation consumers


async def watch(url: str, channel: str) -> None:
    """Hold a subscription to `channel` until the server stops; close every open
    conversation socket whenever the connection breaks. Says so once per outage."""
    lost = False
    while True:
        client = Redis.from_url(url, retry=Retry(NoBackoff(), 0))
        try:
            async with client.pubsub() as pubsub:
                await pubsub.subscribe(channel)
                if lost:
                    logger.warning("Redis answers again")
                    lost = False
                while True:
                    await pubsub.get_message(timeout=None)
        except (RedisError, OSError) as error:
            if not lost:
                logger.warning(
                    "lost Redis (%s): closing %d tabs", type(error).__name__, len(open_sockets)
                )
                lost = True
            await asyncio.gather(
                *(socket.close(code=CLOSE_CODE) for socket in list(open_sockets)),
                return_exceptions=True,
            )
        finally:
            await client.aclose()
        await asyncio.sleep(RETRY_SECONDS)

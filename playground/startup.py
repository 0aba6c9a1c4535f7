"""A web process's start-up work on its event loop: the embedded turn runner (the default), and
with Redis, the watch that closes its tabs when Redis goes away (`socket_watch`)."""

import asyncio

from django.conf import settings

from playground import embedded, socket_watch


async def start() -> None:
    work = [embedded.start()]
    if settings.REDIS_URL:
        channel = f"{settings.REDIS_PREFIX}__watch__"
        work.append(socket_watch.watch(settings.REDIS_URL, channel))
    await asyncio.gather(*work)

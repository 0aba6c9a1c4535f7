"""A web process's start-up work on its event loop: in the embedded default every job
(`playground.jobs`); with Redis the watch that closes its tabs when Redis goes away
(`socket_watch`); SQLite's planner statistics (`planner_statistics`); on PostgreSQL the
deadline on database work (`database_deadline`); and the per-process work registered with
`run_at_start` (the refresh of this process's open tabs). Scale-out web processes run no job."""

import asyncio
from collections.abc import Callable, Coroutine

from django.conf import settings

from playground import jobs
from playground.server import database_deadline, planner_statistics, socket_watch

_registered: list[Callable[[], Coroutine]] = []


def run_at_start(work: Callable[[], Coroutine]) -> None:
    """Have every web process run `work()` on its event loop from start-up on (call it from
    an AppConfig.ready; registering the same function again changes nothing)."""
    if work not in _registered:
        _registered.append(work)


async def start() -> None:
    work = [registered() for registered in _registered]
    if settings.JOBS_RUN_IN == "server":
        work.append(jobs.run(jobs.build(), stopping=asyncio.Event()))
    work.append(planner_statistics.keep_fresh())
    work.append(database_deadline.keep())
    if settings.REDIS_URL:
        channel = f"{settings.REDIS_PREFIX}__watch__"
        work.append(socket_watch.watch(settings.REDIS_URL, channel))
    await asyncio.gather(*work)

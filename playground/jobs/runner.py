"""The jobs a process runs: one loop each, woken when work is added, asleep until it falls due.

An app registers its job in `ready()`. The embedded server runs them all on its event loop;
`manage.py worker` runs them (or those named with --only) in scale-out.
"""

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from django.conf import settings
from django.db import connections, transaction

from playground.jobs.listen import available, subscribe

logger = logging.getLogger(__name__)

CHANNEL = "playground_jobs"  # NOTIFY payload: the name of the job to wake


@dataclass(frozen=True)
class Job:
    """What a job does; the runner does the rest (claiming stays in `step`, via `claim`)."""

    name: str
    # Claim and do (or start) what is due; return the seconds until more falls due, or None
    # when only a wake or the sweep interval will tell.
    step: Callable[[], Awaitable[float | None]]
    start: Callable[[], Awaitable[None]] | None = None  # once, before the first step
    # Once stopping: finish or give back what was claimed, within the grace seconds.
    drain: Callable[[float], Awaitable[None]] | None = None
    channel: str = ""  # a NOTIFY channel of its own that wakes it too (a table's trigger)


# Each job's maker, by name: it builds the job afresh for a run (options: `concurrency`).
JOBS: dict[str, Callable[..., Job]] = {}
_running: dict[str, tuple[asyncio.AbstractEventLoop, asyncio.Event]] = {}


def register(name: str, make: Callable[..., Job]) -> None:
    """Make job `name` one that runners run (call it from an AppConfig.ready)."""
    JOBS[name] = make


def build(names: list[str] | None = None, **options) -> list[Job]:
    """Return the jobs named (all by default), made with `options`."""
    return [JOBS[name](**options) for name in names or JOBS]


def runs_here(name: str) -> bool:
    """Return whether this process runs job `name` right now."""
    loop, _ = _running.get(name, (None, None))
    return loop is not None and loop.is_running()


def wake(name: str) -> bool:
    """Have this process's job `name` look for due work now (from any thread); return False
    when it does not run in this process."""
    if not runs_here(name):
        return False
    loop, event = _running[name]
    loop.call_soon_threadsafe(event.set)
    return True


def wake_on_commit(name: str, using: str = "default") -> None:
    """Inside a transaction that adds work: wake job `name` once it commits, in this process
    and, on PostgreSQL, in every process (a NOTIFY is delivered with the commit)."""
    transaction.on_commit(lambda: wake(name), using=using)
    if connections[using].vendor == "postgresql":
        with connections[using].cursor() as cursor:
            cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, name])


async def run(jobs: list[Job], *, stopping: asyncio.Event, grace: float = 0.0) -> None:
    """Run `jobs` until `stopping` is set, then drain them (cancelled: no drain)."""
    loop = asyncio.get_running_loop()
    for job in jobs:
        _running[job.name] = (loop, asyncio.Event())
    tasks = [asyncio.create_task(_loop(job, stopping)) for job in jobs]
    callbacks = {CHANNEL: lambda name: _wake_listed(name, jobs)}
    callbacks |= {job.channel: lambda _, n=job.name: wake(n) for job in jobs if job.channel}
    unsubscribe = subscribe(callbacks) if available() else None
    try:
        await stopping.wait()
    finally:
        if unsubscribe is not None:
            unsubscribe()
        for task in tasks:
            task.cancel()
        for job in jobs:
            _running.pop(job.name, None)
    await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.gather(*(job.drain(grace) for job in jobs if job.drain), return_exceptions=True)


def _wake_listed(name: str | None, jobs: list[Job]) -> None:
    for job in jobs:
        if name is None or job.name == name:
            wake(job.name)


async def _loop(job: Job, stopping: asyncio.Event) -> None:
    _, event = _running[job.name]
    if job.start is not None:
        await _guarded(job.name, job.start)
    while not stopping.is_set():
        event.clear()
        later = await _guarded(job.name, job.step)
        wait = settings.RECOVERY_SWEEP_SECONDS
        if later is not None:
            wait = min(wait, max(0.0, later))
        if wait > 0:
            try:
                async with asyncio.timeout(wait):
                    await event.wait()
            except TimeoutError:
                pass


async def _guarded(name: str, fn: Callable[[], Awaitable]):
    try:
        return await fn()
    except asyncio.CancelledError:
        raise
    except Exception:
        logger.exception("job %s failed; trying again shortly", name)
        return None

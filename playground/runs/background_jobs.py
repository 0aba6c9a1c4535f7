"""The playground's jobs (see `playground.jobs`): turns, schedule slots, notices, escalations
and uploads never sent with an answer. Registered by the playground app's `ready()`."""

from collections.abc import Awaitable, Callable
from functools import partial

from django.conf import settings

from elicitation.database_hop import in_db
from elicitation.models import Part
from elicitation.uploads import remove_unsent
from playground import jobs
from playground.chat.push import tell_audience_soon
from playground.inbox.escalation import escalate_due
from playground.jobs.listen import available as notify_available
from playground.notify.queue import notice_escalated
from playground.notify.sender import NoticeSender, refresh_tabs
from playground.runs import recovery
from playground.runs.tasks import TurnRunner
from playground.schedules import scheduler
from playground.server import startup

TURN_QUEUED = "playground_turn_queued"  # sent by the turn table's trigger (migration 0003)


def turns(*, concurrency: int | None = None, **options) -> jobs.Job:
    """Run queued turns; without NOTIFY to wake it, poll fast instead."""
    in_server = settings.JOBS_RUN_IN == "server"
    runner = TurnRunner(
        concurrency=concurrency or settings.EMBEDDED_CONCURRENCY,
        poll_seconds=settings.RECOVERY_SWEEP_SECONDS if in_server or notify_available() else 0.25,
    )
    start_up = in_db(partial(recovery.start_up, only_runner=in_server))
    return jobs.Job("turns", runner.step, start=start_up, drain=runner.drain, channel=TURN_QUEUED)


def schedules(**options) -> jobs.Job:
    """Start the runs of schedule slots as they fall due."""
    return jobs.Job("schedules", scheduler.fire_step)


def notices(**options) -> jobs.Job:
    """Mail and show the notices due (playground/notify/sender.py)."""
    sender = NoticeSender()
    return jobs.Job("notices", sender.step, drain=sender.drain)


def escalations(**options) -> jobs.Job:
    """Ask more people the questions due for escalation."""
    return jobs.Job("escalations", _every_sweep(escalate))


def uploads(**options) -> jobs.Job:
    """Remove the uploads never sent with an answer."""
    return jobs.Job("uploads", _every_sweep(remove_unsent))


def _every_sweep(work) -> Callable[[], Awaitable[None]]:
    """A step that does `work` off the event loop, then sleeps a sweep interval."""
    hop = in_db(work)

    async def step() -> None:
        await hop()

    return step


def escalate() -> list[int]:
    """Escalate the questions due; tell everyone added, as of a new question."""
    escalated: list[Part] = escalate_due()
    for part in escalated:
        tell_audience_soon(part)  # it arrives in the inbox of everyone added
        notice_escalated(part, part.escalated_at)
    return [part.pk for part in escalated]


def register() -> None:
    for make in (turns, schedules, notices, escalations, uploads):
        jobs.register(make.__name__, make)
    # Each web process keeps its own open tabs marked open (playground/notify/presence.py).
    startup.run_at_start(refresh_tabs)

"""Pick up the turns a crash left behind. One routine for both modes.

The embedded server runs `sweep(at_startup=True)` when it starts (it is the only runner, so
every turn marked running was interrupted) and `sweep()` every RECOVERY_SWEEP_SECONDS, like
each `agent_worker` in scale-out. Queued turns need no recovery: the Turn table is the queue,
and a runner claims them whoever queued them. Every change is a conditional UPDATE or goes
through `tasks.mark_for_resume` (which locks the turn), so sweeps running at once pick each
turn up once.
"""

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from elicitation.models import Part
from playground.models import Turn
from playground.tasks import mark_for_resume

logger = logging.getLogger(__name__)


def sweep(*, at_startup: bool = False) -> dict[str, list[int]]:
    """Run one recovery pass; return the ids of the turns it picked up, by reason."""
    return {
        "interrupted": _requeue_interrupted_turns(at_startup),
        "answered": _resume_answered_turns(),
    }


def _requeue_interrupted_turns(at_startup: bool) -> list[int]:
    """Queue again the running turns whose runner died (its heartbeat went stale)."""
    running = Turn.objects.filter(status=Turn.Status.RUNNING)
    if not at_startup:
        stale_after = timedelta(seconds=settings.RUN_STALE_AFTER_SECONDS)
        running = running.filter(heartbeat_at__lt=timezone.now() - stale_after)
    requeued = []
    for turn_id, token in running.values_list("pk", "run_token"):
        if running.filter(pk=turn_id, run_token=token).update(
            status=Turn.Status.QUEUED, run_token=""
        ):
            requeued.append(turn_id)
    if requeued:
        logger.info("queued %d interrupted turn(s) again: %s", len(requeued), requeued)
    return requeued


def _resume_answered_turns() -> list[int]:
    """Resume waiting turns that have no open question left.

    Settling a question queues its turn in the same transaction, so this finds only turns
    stranded by older versions or by hand-edited data; it keeps the guarantee unconditional.
    """
    waiting = Turn.objects.filter(status=Turn.Status.WAITING).exclude(
        parts__state=Part.State.PENDING
    )
    resumed = list(waiting.values_list("pk", flat=True))
    for turn_id in resumed:
        with transaction.atomic():
            mark_for_resume(turn_id)
    if resumed:
        logger.info("resumed %d answered turn(s): %s", len(resumed), resumed)
    return resumed

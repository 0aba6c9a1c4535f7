"""Pick up agent runs that scale-out left behind: a worker killed mid-run, or a lost connection
between saving something and enqueueing the run that follows it.

Each `agent_worker` calls `sweep()` every RECOVERY_SWEEP_SECONDS. Every change is a
conditional UPDATE (or `request_resume`, which locks the turn), so several workers sweeping at
once pick each turn up once; a duplicate task for a turn that is no longer queued does nothing.
"""

import logging
from datetime import timedelta

from django.db.models import Max, Q
from django.tasks import TaskResultStatus
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from elicitation.models import Part
from playground import runtime
from playground.models import Turn
from playground.tasks import run_turn

logger = logging.getLogger(__name__)

ABANDONED = "The worker running this task stopped; the recovery sweep queued the turn again."


def sweep(stale_after: timedelta | None = None) -> dict[str, list[int]]:
    """Run one recovery pass; return the ids of the turns it picked up, by reason."""
    stale_after = stale_after or runtime.STALE_AFTER
    started = timezone.now()
    cutoff = started - stale_after
    interrupted = runtime.recover_stale_turns(stale_after=stale_after)
    _close_abandoned_task_rows(interrupted, started)
    return {
        "interrupted": interrupted,
        "answered": _resume_answered_turns(cutoff),
        "unqueued": _enqueue_unqueued_turns(cutoff),
    }


def _close_abandoned_task_rows(turn_ids: list[int], before) -> None:
    """Mark the dead worker's task rows failed, so the admin does not show them running."""
    if not turn_ids:
        return
    rows = DBTaskResult.objects.filter(
        status=TaskResultStatus.RUNNING, task_path=run_turn.module_path, started_at__lt=before
    )
    for row in rows.only("pk", "args_kwargs"):
        if row.args_kwargs["args"][:1] and row.args_kwargs["args"][0] in turn_ids:
            rows.filter(pk=row.pk).update(
                status=TaskResultStatus.FAILED, finished_at=timezone.now(), traceback=ABANDONED
            )


def _resume_answered_turns(cutoff) -> list[int]:
    """Resume waiting turns whose questions were all answered long ago but never resumed.

    That happens when the database went away between a settlement's commit and its resume.
    """
    turns = (
        Turn.objects.filter(status=Turn.Status.WAITING, updated_at__lt=cutoff)
        .annotate(last_settled=Max("parts__settled_at"))
        .exclude(parts__state=Part.State.PENDING)
        .filter(Q(last_settled__lt=cutoff) | Q(last_settled__isnull=True))
    )
    resumed = list(turns.values_list("pk", flat=True))
    for turn_id in resumed:
        runtime.request_resume(turn_id)
    if resumed:
        logger.info("resumed %d answered turn(s): %s", len(resumed), resumed)
    return resumed


def _enqueue_unqueued_turns(cutoff) -> list[int]:
    """Enqueue queued turns that have no task waiting or running for them.

    That happens when the database went away between saving a turn and enqueueing its run.
    """
    live = DBTaskResult.objects.filter(
        status__in=[TaskResultStatus.READY, TaskResultStatus.RUNNING],
        task_path=run_turn.module_path,
    ).values_list("args_kwargs", flat=True)
    covered = {args_kwargs["args"][0] for args_kwargs in live if args_kwargs["args"]}
    queued = Turn.objects.filter(status=Turn.Status.QUEUED, updated_at__lt=cutoff)
    orphans = [turn_id for turn_id in queued.values_list("pk", flat=True) if turn_id not in covered]
    for turn_id in orphans:
        run_turn.enqueue(turn_id)
    if orphans:
        logger.info("enqueued %d turn(s) that had no task: %s", len(orphans), orphans)
    return orphans

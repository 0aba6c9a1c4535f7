"""Pick up the turns a crash left behind. One routine for both modes.

Every runner runs `start_up()` once when it starts (the embedded server with `only_runner`:
every turn still marked running was interrupted) and `sweep()` every RECOVERY_SWEEP_SECONDS.
Queued turns need no recovery: the Turn table is the queue, and a runner claims them whoever
queued them. Every change is a conditional UPDATE or goes through `tasks.mark_for_resume`
(which locks the turn), so passes running at once pick each turn up once.
"""

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from elicitation.models import Part
from elicitation.uploads import remove_unsent
from inbox.escalation import escalate_due
from notify.queue import notice_escalated
from playground.models import Turn
from playground.push import tell_audience_soon
from playground.tasks import mark_for_resume

logger = logging.getLogger(__name__)


def start_up(*, only_runner: bool = False) -> dict[str, list[int]]:
    """Run the recovery pass of a runner that starts; return the turns it picked up, by reason.

    Answered turns left waiting are looked for here only: settling a question queues its turn
    in the same transaction, so only older versions (or hand-edited data) leave one behind,
    and looking at every waiting turn every few seconds made waiting questions cost idle CPU
    (1 % of a core with 10,000 of them, bench/waiting_cost.py).
    """
    return {
        "interrupted": _requeue_interrupted_turns(every_running=only_runner),
        "answered": _resume_answered_turns(),
    }


def sweep() -> dict[str, list[int]]:
    """Run one periodic recovery pass: turns whose runner died are queued again,
    questions due for escalation are asked of more people, and uploads never sent with an
    answer are removed."""
    return {
        "interrupted": _requeue_interrupted_turns(every_running=False),
        "escalated": _escalate(),
        "unsent_files": remove_unsent(),
    }


def _escalate() -> list[int]:
    escalated = escalate_due()
    for part in escalated:
        tell_audience_soon(part)  # it arrives in the inbox of everyone added
        notice_escalated(part, part.escalated_at)  # and they are told, as of a new question
    return [part.pk for part in escalated]


def _requeue_interrupted_turns(*, every_running: bool) -> list[int]:
    """Queue again the running turns whose runner died (its heartbeat went stale), or every
    running turn when the caller is the only runner and has just started."""
    running = Turn.objects.filter(status=Turn.Status.RUNNING)
    if not every_running:
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

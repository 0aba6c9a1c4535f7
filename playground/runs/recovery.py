"""Pick up what a crash left behind, once, as the turns job starts.

The embedded server is the only runner, so every turn still marked running was interrupted; a
worker that starts beside others takes only the stale ones (the turns job's sweep does that
from then on). Queued turns need no recovery: the Turn table is the queue.
"""

import logging

from django.db import transaction

from elicitation.models import Part
from playground.runs.models import Turn
from playground.runs.tasks import mark_for_resume, requeue_interrupted

logger = logging.getLogger(__name__)


def start_up(*, only_runner: bool = False) -> dict[str, list[int]]:
    """Run the recovery pass of a runner that starts; return the turns it picked up, by reason.

    Answered turns left waiting are looked for here only: settling a question queues its turn
    in the same transaction, so only older versions (or hand-edited data) leave one behind.
    """
    return {
        "interrupted": requeue_interrupted(every_running=only_runner),
        "answered": _resume_answered_turns(),
    }


def _resume_answered_turns() -> list[int]:
    """Resume waiting turns that have no open question left."""
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

"""Escalation: a question still waiting at its `escalate_at` is asked of `escalate_to` too.

The escalations job (playground/runs/background_jobs.py) calls `escalate_due()`; each part is
claimed with a conditional UPDATE, so jobs running at once in several processes escalate it once.
"""

import logging

from django.db import transaction
from django.utils import timezone

from elicitation.models import Part
from playground.inbox import routing

logger = logging.getLogger(__name__)
BATCH = 100


def escalate_due() -> list[Part]:
    """Add the escalation's people and groups to every due pending part; return those parts."""
    now = timezone.now()
    # The partial index on escalate_at alone, whatever the planner's statistics say: joined to
    # the people, or through the state's index, this query read every pending question.
    due = Part.objects.filter(escalate_at__lte=now).order_by("escalate_at")
    escalated = []
    for pk, escalate_at, state in due.values_list("pk", "escalate_at", "state")[:BATCH]:
        if state != Part.State.PENDING:
            # Answered before its time: never escalated, and out of the index.
            Part.objects.filter(pk=pk, escalate_at=escalate_at).update(escalate_at=None)
            continue
        with transaction.atomic():
            claimed = Part.objects.filter(
                pk=pk, escalate_at=escalate_at, state=Part.State.PENDING
            ).update(escalate_at=None, escalated_at=now)
            if not claimed:
                continue  # another sweep took it, or it was answered just now
            part = Part.objects.select_related(
                "conversation__agent", "conversation__owner__time_zone"
            ).get(pk=pk)
            # Checked again: the owner may have left a group since the question was asked.
            audience = routing.resolve(part.conversation.owner, part.escalate_to)
            if isinstance(audience, str):
                logger.warning("part %s not escalated: %s", part.pk, audience)
                continue
            part.assigned_users.add(*audience.users)
            part.assigned_groups.add(*audience.groups)
            part.ask = list(dict.fromkeys([*part.ask, *audience.names]))
            Part.objects.filter(pk=part.pk).update(ask=part.ask)
        escalated.append(part)
    if escalated:
        logger.info("escalated %d question(s): %s", len(escalated), [p.pk for p in escalated])
    return escalated

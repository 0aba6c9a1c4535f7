"""Move a part out of `pending`: one conditional UPDATE, so exactly one settlement wins."""

from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone

from elicitation.models import Part

# Sent after the winning settlement commits; the runtime resumes the run, the chat pushes the chip.
part_settled = Signal()

STATE_FOR_ACTION = {
    "accept": Part.State.SUBMITTED,
    "respond": Part.State.SUBMITTED,
    "decline": Part.State.DECLINED,
    "cancel": Part.State.CANCELLED,
}


def settle_part(part_id: int, envelope: dict, *, user=None) -> bool:
    """Settle a pending part with a response envelope; return False if it was already settled."""
    state = STATE_FOR_ACTION[envelope["action"]]
    with transaction.atomic():
        won = Part.objects.filter(pk=part_id, state=Part.State.PENDING).update(
            state=state, response=envelope, settled_at=timezone.now(), settled_by=user
        )
        if won:
            transaction.on_commit(lambda: part_settled.send(Part, part_id=part_id))
    return bool(won)

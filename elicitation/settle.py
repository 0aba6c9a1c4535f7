"""Move a part out of `pending`: one conditional UPDATE, so exactly one settlement wins."""

from functools import partial

from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone

from elicitation.models import Part, searchable_text
from elicitation.rendering import render_part_html
from elicitation.uploads import claim, discard_unsent

# Sent inside the winning settlement's transaction, with `part`: the runtime queues the run
# there, so the answer and the resumption commit together or not at all.
part_settling = Signal()
# Sent after the commit, with `part` and its rendered fragment `html`: the chat pushes it.
part_settled = Signal()

STATE_FOR_ACTION = {
    "accept": Part.State.SUBMITTED,
    "respond": Part.State.SUBMITTED,
    "decline": Part.State.DECLINED,
    "cancel": Part.State.CANCELLED,
}


def settle_part(part: Part, envelope: dict, *, user=None) -> str | None:
    """Settle a pending part with a response envelope.

    Return the settled part's HTML (rendered once, for the response and every open tab), or
    None when another settlement won first; `part` is then left as it was.
    """
    state, now = STATE_FOR_ACTION[envelope["action"]], timezone.now()
    settled = Part(payload=part.payload, normalized=part.normalized, response=envelope)
    words = searchable_text(settled)
    with transaction.atomic():
        won = Part.objects.filter(pk=part.pk, state=Part.State.PENDING).update(
            state=state, response=envelope, settled_at=now, settled_by=user, search_text=words
        )
        if not won:
            return None
        part.state, part.response, part.settled_at, part.settled_by = state, envelope, now, user
        part.search_text = words
        claim(part, envelope)  # the files this answer carries; any other upload goes
        html = render_part_html(part)
        # Before the settling signal queues the run: commit hooks run in order, so the tabs
        # are sent the answered card before the run is woken, and its reply cannot overtake it.
        transaction.on_commit(partial(part_settled.send, Part, part=part, html=html))
        part_settling.send(Part, part=part)
    transaction.on_commit(partial(discard_unsent, part))
    return html

"""The `url-wait` kind: "Waiting for <server>…" after the person opened a URL-mode page.

It follows an accepted `url` part (settled parts never change, so the wait is a part of its
own) and takes the same request (`elicitation.kinds.url` documents how a runner asks). It
offers "I'm done" (accept) for servers that never say so, and Cancel.

When the server's `notifications/elicitation/complete` arrives, the runner settles the part
with no person: `settle_part(part, COMPLETED)` (`user` left None), finding it with
`waiting_for(elicitation_id)`. The chip then says the server completed it; after "I'm done"
it names the person.
"""

from elicitation import contract
from elicitation.kinds.base import NOT_OFFERED, Answer, InteractionKind, Refusal
from elicitation.kinds.url import parse_url_request
from elicitation.models import Part, PartQuerySet

NAME = "url-wait"
COMPLETED = {"action": "accept"}


def waiting_for(elicitation_id: str) -> PartQuerySet:
    """Return the pending waits for a URL-mode elicitation (at most one in practice)."""
    return Part.objects.filter(
        render_kind=NAME, state=Part.State.PENDING, normalized__elicitation_id=elicitation_id
    )


def read_wait_answer(part: Part, answer: Answer) -> dict | Refusal:
    """I'm done (accept) or Cancel."""
    if answer.action == "accept":
        return dict(COMPLETED)
    if answer.action == "cancel":
        return contract.cancel()
    return Refusal(400, {"": NOT_OFFERED})


KIND = InteractionKind(
    name=NAME,
    tool_name="wait_for_url",
    template="elicitation/kinds/url_wait.html",
    parse=parse_url_request,
    read_answer=read_wait_answer,
    label="Waiting for",
)

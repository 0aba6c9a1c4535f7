"""Who is told about a question: everyone who may answer it
(playground.inbox.routing.audience_of)."""

from elicitation.models import Part
from playground.inbox.routing import audience_of


def recipients_for(part: Part) -> list[int]:
    """Return the ids of the people to notify about a new pending question."""
    if not part.ask:
        return [part.conversation.owner_id]  # the usual question: its owner, with no query
    return [user.pk for user in audience_of(part)]

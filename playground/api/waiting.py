"""Long-polling without holding anything: wait on a channel-layer group, not on the database.

A waiting API call first does its lookups on a pooled thread that gives its database
connection back at once (`in_db`, from `elicitation.database_hop`), then joins a group and
sleeps until a message arrives or time runs out: no thread, no connection. A settled external
question is announced to its part's group; a person's message reaches the conversation's
group as the chat's own push.
"""

from elicitation.database_hop import in_db
from playground.api.external import KIND
from playground.chat.part_waiting import announce_settled, part_group, wait_in_group

__all__ = ["in_db", "part_group", "wait_in_group", "wake_waiters"]


def wake_waiters(sender, part, html: str, **kwargs) -> None:
    """After an external agent's question settles: wake the API calls waiting for it."""
    if part.conversation.agent.kind != KIND:
        return
    announce_settled(part.pk)

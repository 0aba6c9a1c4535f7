"""Tell the people a question waits for that their inbox changed (a new question, an answer).

Each person's open tabs share one channel-layer group; the inbox socket in every page's header
renders what changed for its own person (playground.inbox.consumers), so the push carries no HTML.
"""

import logging

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from elicitation.models import Part
from playground.inbox.routing import audience_of

logger = logging.getLogger(__name__)


def group_for(user_id: int) -> str:
    """Return the channel-layer group of a person's open tabs."""
    return f"inbox-{user_id}"


async def tell_audience(part: Part) -> None:
    """Tell everyone who may answer `part` (and whoever answered it) that it changed."""
    if part.ask:
        people = {user.pk for user in await database_sync_to_async(audience_of)(part)}
    else:
        people = {part.conversation.owner_id}  # no query for the usual question
    if part.settled_by_id:
        people.add(part.settled_by_id)
    if part.owner_may_answer is False:
        people.add(part.conversation.owner_id)  # the starter watches it wait for others
    layer = get_channel_layer()
    for user_id in sorted(people):
        try:
            await layer.group_send(group_for(user_id), {"type": "inbox.changed", "part": part.pk})
        except Exception:
            # Best effort, like every push: the inbox page reads the database on load.
            logger.warning("inbox push to person %s failed", user_id, exc_info=True)

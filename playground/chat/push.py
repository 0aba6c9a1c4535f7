"""Send rendered fragments to every open tab of a conversation (htmx `hx-swap-oob` swaps)."""

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from playground.chat import fragments
from playground.inbox import live
from playground.server import server_loop

logger = logging.getLogger(__name__)


def group_for(conversation_id: int) -> str:
    """Return the channel-layer group of a conversation's open tabs."""
    return f"conversation-{conversation_id}"


async def push_html(conversation_id: int, html: str) -> None:
    """Push an out-of-band fragment to the conversation's open tabs."""
    layer = get_channel_layer()
    try:
        await layer.group_send(group_for(conversation_id), {"type": "fragment.push", "html": html})
    except Exception:
        # Best effort (Redis restarting, say): the database holds the truth, and a tab that
        # lost its socket gets the whole conversation again when it reconnects.
        logger.warning("push to conversation %s failed", conversation_id, exc_info=True)


def push_html_soon(conversation_id: int, html: str) -> None:
    """Push from synchronous code (views, commit hooks): hand it to the server loop if any."""
    if not server_loop.submit(push_html(conversation_id, html)):
        async_to_sync(push_html)(conversation_id, html)


def on_part_settled(sender, part, html: str, **kwargs) -> None:
    """Show a settled part in every open tab, as the fragment its settlement rendered, and
    tell everyone it waited for that their inbox changed."""
    push_html_soon(part.conversation_id, fragments.append_to_turn(part.turn_id, html))
    tell_audience_soon(part)


def tell_audience_soon(part) -> None:
    """Tell a question's audience their inbox changed, from synchronous code."""
    if not server_loop.submit(live.tell_audience(part)):
        async_to_sync(live.tell_audience)(part)

"""One websocket per open conversation: join its group, forward rendered fragments."""

from concurrent.futures import ThreadPoolExecutor

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.utils.html import format_html

from elicitation.models import Part
from playground.chat import fragments
from playground.chat.push import group_for
from playground.notify import presence
from playground.notify.sender import person_group
from playground.runs.models import Conversation
from playground.server import socket_watch
from playground.server.layer_channels import release

# What the layer hands a tab to forward: no database work.
PUSHES = {"fragment.push", "notify.browser"}


class ConversationConsumer(AsyncWebsocketConsumer):
    async def dispatch(self, message: dict) -> None:
        # Channels closes the thread's old database connections before every handler: a hop
        # to the one thread that every socket and the embedded runs share, queued behind their
        # queries, and a reconnect for the next run's query there. A push touches no database.
        if message["type"] in PUSHES:
            await getattr(self, get_handler_name(message))(message)
        else:
            await super().dispatch(message)

    async def connect(self) -> None:
        user = self.scope["user"]
        conversation_id = self.scope["url_route"]["kwargs"]["conversation_id"]
        sees = user.is_authenticated and await _sees(user, conversation_id)
        if not sees:
            await self.close()  # refused before the handshake completes
            return
        self.group = group_for(conversation_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        # The person's notifications about other conversations reach this tab too.
        self.person_group = person_group(user.pk)
        await self.channel_layer.group_add(self.person_group, self.channel_name)
        await self.accept()
        socket_watch.open_sockets.add(self)
        # Whatever happened while this tab had no socket (first load or a reconnect).
        await self.send(text_data=await _opened(user.pk, conversation_id, self.channel_name))

    async def disconnect(self, code: int) -> None:
        socket_watch.open_sockets.discard(self)
        try:
            if hasattr(self, "group"):
                await database_sync_to_async(presence.tab_closed)(self.channel_name)
                await self.channel_layer.group_discard(self.group, self.channel_name)
                await self.channel_layer.group_discard(self.person_group, self.channel_name)
        finally:
            await release(self.channel_layer, self.channel_name)

    async def fragment_push(self, event: dict) -> None:
        await self.send(text_data=event["html"])

    async def notify_browser(self, event: dict) -> None:
        """Hand a notification about another conversation to the page (static/playground.js)."""
        html = format_html(
            '<div id="browser-notice" hidden hx-swap-oob="true" data-title="{}" data-body="{}" '
            'data-url="{}" data-tag="{}"></div>',
            event["title"],
            event["body"],
            event["url"],
            event["tag"],
        )
        await self.send(text_data=html)


@database_sync_to_async
def _sees(user, conversation_id: int) -> bool:
    """Return whether the person owns the conversation or was asked a question in it."""
    if Conversation.objects.owned_by(user).filter(pk=conversation_id).exists():
        return True
    return Part.objects.routed_to(user).filter(conversation_id=conversation_id).exists()


# A resync renders a whole conversation. On the one thread that every socket's database work
# shares, fifty tabs opening at once queued their resyncs ahead of the next tab's login and
# access check, and a tab not let in within daphne's opening-handshake timeout (5 s) was
# dropped with no response (bench/notify, scale-out). Resyncs take turns on a thread of their
# own instead, so a tab is let in at once and its resync follows.
_RESYNCS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="resync")


def _opened_sync(user_id: int, conversation_id: int, channel_name: str) -> str:
    """Note the open tab (so its person is not emailed about what it shows) and return the
    conversation as it is now, in one hop off the event loop."""
    presence.tab_opened(user_id, conversation_id, channel_name)
    return fragments.resync(conversation_id)


_opened = database_sync_to_async(_opened_sync, thread_sensitive=False, executor=_RESYNCS)

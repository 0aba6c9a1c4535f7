"""One websocket per open conversation: join its group, forward rendered fragments."""

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from playground import fragments, socket_watch
from playground.layer_channels import release
from playground.models import Conversation
from playground.push import group_for


class ConversationConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        user = self.scope["user"]
        conversation_id = self.scope["url_route"]["kwargs"]["conversation_id"]
        owns = user.is_authenticated and await _owns(user, conversation_id)
        if not owns:
            await self.close()  # refused before the handshake completes
            return
        self.group = group_for(conversation_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        socket_watch.open_sockets.add(self)
        # Whatever happened while this tab had no socket (first load or a reconnect).
        await self.send(text_data=await database_sync_to_async(fragments.resync)(conversation_id))

    async def disconnect(self, code: int) -> None:
        socket_watch.open_sockets.discard(self)
        try:
            if hasattr(self, "group"):
                await self.channel_layer.group_discard(self.group, self.channel_name)
        finally:
            await release(self.channel_layer, self.channel_name)

    async def fragment_push(self, event: dict) -> None:
        await self.send(text_data=event["html"])


@database_sync_to_async
def _owns(user, conversation_id: int) -> bool:
    return Conversation.objects.owned_by(user).filter(pk=conversation_id).exists()

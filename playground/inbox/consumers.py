"""One socket per open page: the header's count, and an inbox page's items, kept live."""

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.http import QueryDict

from elicitation.models import Part
from playground.inbox import queries
from playground.inbox.items import parts_for_items, render_count, render_item
from playground.inbox.live import group_for


class InboxConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        user = self.scope["user"]
        if not user.is_authenticated:
            await self.close()
            return
        query = QueryDict(self.scope.get("query_string", b"").decode())
        # An inbox page also gets its items; `list` carries its filters.
        self.listing = "list" in query
        self.filters = queries.Filters.read(query)
        self.counter: queries.Counter | None = None  # made on the database thread, once
        self.group = group_for(user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send(text_data=await database_sync_to_async(self._count)())

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def inbox_changed(self, event: dict) -> None:
        await self.send(text_data=await database_sync_to_async(self._changed)(event["part"]))

    def _count(self) -> str:
        if self.counter is None:
            self.counter = queries.Counter(self.scope["user"])
        return render_count(self.counter.count(), oob=True)

    def _changed(self, part_id: int) -> str:
        html = self._count()
        if not self.listing:
            return html
        user = self.scope["user"]
        visible = parts_for_items(Part.objects.visible_to(user)).filter(pk=part_id).first()
        if visible is None:
            return html
        if visible.is_pending and not (
            queries.waiting_for(user, self.filters).filter(pk=part_id).exists()
        ):
            return html  # not one this page lists
        # A new question is added at the end (oldest first); an answered one replaces its
        # item if the page shows it (static/inbox.js drops it otherwise).
        item = render_item(visible, user)
        return html + f'<div hx-swap-oob="beforeend:#inbox-list">{item}</div>'

"""The playground's ASGI app plus `/ws/bench/echo/`: the push_latency baseline, a bare
`group_send` of a given size through the same channel layer, stamped when it is sent."""

import os
import time
import uuid

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")

from channels.generic.websocket import AsyncWebsocketConsumer

from playground.asgi import application as playground_application


class EchoConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.group = f"bench-echo-{uuid.uuid4().hex}"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def receive(self, text_data: str = "", bytes_data=None) -> None:
        stamp = f"{time.time():.6f} "
        padding = "x" * max(0, int(text_data) - len(stamp))
        await self.channel_layer.group_send(
            self.group, {"type": "fragment.push", "html": stamp + padding}
        )

    async def fragment_push(self, event: dict) -> None:
        await self.send(text_data=event["html"])


echo = EchoConsumer.as_asgi()


async def application(scope, receive, send):
    if scope["type"] == "websocket" and scope["path"] == "/ws/bench/echo/":
        return await echo(scope, receive, send)
    return await playground_application(scope, receive, send)

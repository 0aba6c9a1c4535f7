"""The embedded server's channel layer: in one process, like channels' InMemoryChannelLayer.

That layer walks every channel and every group membership on each `receive` and `group_send`
to drop expired ones, so a push's cost grows with the tabs open (bench/idle_sockets.py). Here
a push touches only its group, and the walk runs at most once per `expiry` seconds: a message
or a membership may outlive its expiry by up to that much more, which only delays forgetting
a tab that went away without saying so.
"""

import asyncio
import secrets
import time
from copy import deepcopy

from channels.exceptions import ChannelFull
from channels.layers import BaseChannelLayer


class LocalChannelLayer(BaseChannelLayer):
    extensions = ["groups", "flush"]

    def __init__(
        self, expiry=60, group_expiry=86400, capacity=100, channel_capacity=None, **kwargs
    ):
        super().__init__(expiry=expiry, capacity=capacity, **kwargs)
        self.channel_capacity = self.compile_capacities(channel_capacity or {})
        self.group_expiry = group_expiry
        self.channels: dict[str, asyncio.Queue] = {}
        self.groups: dict[str, dict[str, float]] = {}  # group -> channel -> joined at
        self.swept_at = time.time()

    async def send(self, channel: str, message: dict) -> None:
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_channel_name(channel)
        self._sweep_now_and_then()
        queue = self.channels.setdefault(channel, asyncio.Queue(self.get_capacity(channel)))
        try:
            queue.put_nowait((time.time() + self.expiry, deepcopy(message)))
        except asyncio.QueueFull:
            raise ChannelFull(channel) from None

    async def receive(self, channel: str) -> dict:
        self.require_valid_channel_name(channel)
        queue = self.channels.setdefault(channel, asyncio.Queue(self.get_capacity(channel)))
        try:
            while True:
                expires, message = await queue.get()
                if expires >= time.time():
                    return message
        finally:
            if queue.empty():
                self.channels.pop(channel, None)

    async def new_channel(self, prefix: str = "specific.") -> str:
        return f"{prefix}.inmemory!{secrets.token_hex(8)}"

    async def group_add(self, group: str, channel: str) -> None:
        self.require_valid_group_name(group)
        self.require_valid_channel_name(channel)
        self.groups.setdefault(group, {})[channel] = time.time()

    async def group_discard(self, group: str, channel: str) -> None:
        self.require_valid_channel_name(channel)
        self.require_valid_group_name(group)
        members = self.groups.get(group)
        if members is not None:
            members.pop(channel, None)
            if not members:
                del self.groups[group]

    async def group_send(self, group: str, message: dict) -> None:
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_group_name(group)
        self._sweep_now_and_then()
        for channel in list(self.groups.get(group, ())):
            try:
                await self.send(channel, message)
            except ChannelFull:
                pass  # a group send is best effort per member, as in every channels layer

    async def flush(self) -> None:
        self.channels, self.groups = {}, {}

    async def close(self) -> None:
        pass

    def _sweep_now_and_then(self) -> None:
        """Once per `expiry`: forget channels holding an expired message (nobody reads them)
        and group memberships older than `group_expiry`."""
        now = time.time()
        if now - self.swept_at < self.expiry:
            return
        self.swept_at = now
        dead = set()
        for channel, queue in list(self.channels.items()):
            waiting = [queue.get_nowait() for _ in range(queue.qsize())]
            if any(expires < now for expires, _ in waiting):
                dead.add(channel)
                del self.channels[channel]
            else:
                for item in waiting:
                    queue.put_nowait(item)
        joined_after = now - self.group_expiry
        for group, members in list(self.groups.items()):
            for channel, joined in list(members.items()):
                if channel in dead or joined < joined_after:
                    del members[channel]
            if not members:
                del self.groups[group]

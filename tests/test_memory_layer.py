"""The embedded server's channel layer keeps channels' layer contract: delivery, groups,
capacity, expiry and flush."""

import asyncio
import time
from types import SimpleNamespace

import pytest
from channels.exceptions import ChannelFull

from playground.server import memory_layer
from playground.server.memory_layer import LocalChannelLayer


@pytest.fixture
def clock(monkeypatch) -> list[float]:
    """The layer's clock, moved on by the test (`clock[0] += seconds`) instead of waiting."""
    now = [time.time()]
    monkeypatch.setattr(memory_layer, "time", SimpleNamespace(time=lambda: now[0]))
    return now


async def test_a_message_sent_is_received_once_as_it_was_sent():
    layer = LocalChannelLayer()
    channel = await layer.new_channel()
    message = {"type": "chat.push", "html": "<p>hi</p>"}
    await layer.send(channel, message)
    message["html"] = "changed after sending"

    assert await layer.receive(channel) == {"type": "chat.push", "html": "<p>hi</p>"}
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(layer.receive(channel), 0.05)


async def test_a_group_send_reaches_every_member_and_no_one_who_left():
    layer = LocalChannelLayer()
    first, second, gone = [await layer.new_channel() for _ in range(3)]
    for channel in (first, second, gone):
        await layer.group_add("conversation-1", channel)
    await layer.group_discard("conversation-1", gone)

    await layer.group_send("conversation-1", {"type": "chat.push"})

    assert await layer.receive(first) == {"type": "chat.push"}
    assert await layer.receive(second) == {"type": "chat.push"}
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(layer.receive(gone), 0.05)


async def test_a_full_channel_refuses_a_send_and_a_group_send_skips_it():
    layer = LocalChannelLayer(capacity=2)
    full, other = await layer.new_channel(), await layer.new_channel()
    await layer.group_add("g", full)
    await layer.group_add("g", other)
    await layer.send(full, {"type": "a"})
    await layer.send(full, {"type": "b"})

    with pytest.raises(ChannelFull):
        await layer.send(full, {"type": "c"})
    await layer.group_send("g", {"type": "d"})

    assert [await layer.receive(full), await layer.receive(full)] == [{"type": "a"}, {"type": "b"}]
    assert await layer.receive(other) == {"type": "d"}


async def test_an_expired_message_is_not_delivered_and_its_reader_is_forgotten(clock):
    layer = LocalChannelLayer(expiry=60)
    dead, alive = await layer.new_channel(), await layer.new_channel()
    await layer.group_add("g", dead)
    await layer.group_add("g", alive)
    await layer.send(dead, {"type": "never read"})
    clock[0] += 61

    await layer.group_send("g", {"type": "after"})  # the sweep finds the unread message

    assert "g" in layer.groups and list(layer.groups["g"]) == [alive]
    assert await layer.receive(alive) == {"type": "after"}


async def test_memberships_expire_after_group_expiry(clock):
    layer = LocalChannelLayer(expiry=60, group_expiry=3600)
    channel = await layer.new_channel()
    await layer.group_add("g", channel)
    clock[0] += 3601

    await layer.group_send("g", {"type": "late"})

    with pytest.raises(TimeoutError):
        await asyncio.wait_for(layer.receive(channel), 0.05)


async def test_flush_forgets_messages_and_groups():
    layer = LocalChannelLayer()
    channel = await layer.new_channel()
    await layer.group_add("g", channel)
    await layer.send(channel, {"type": "x"})

    await layer.flush()
    await layer.group_send("g", {"type": "y"})

    with pytest.raises(TimeoutError):
        await asyncio.wait_for(layer.receive(channel), 0.05)


async def test_names_are_checked_like_every_channels_layer():
    layer = LocalChannelLayer()
    with pytest.raises(TypeError):
        await layer.send("not a valid name!", {"type": "x"})
    with pytest.raises(TypeError):
        await layer.group_add("group with spaces", await layer.new_channel())

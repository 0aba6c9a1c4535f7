"""Open tabs on the Redis channel layer: an idle socket stays open, and a burst of closing
tabs (a restart or a proxy reload drops every tab at once) leaves no group membership behind.

One daphne on SQLite with the machine's Redis under a key prefix of its own.
"""

import asyncio
import uuid

import pytest
import redis
from websockets.asyncio.client import connect

from tests.live_server import LiveServer, wait_for
from tests.test_scaleout import PASSWORD, REDIS_URL, USERNAME, Person, require_services

TABS = 500  # the burst size that exhausted the layer's pool of 100 Redis connections


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_services()
    prefix = f"test-sockets-{uuid.uuid4().hex[:12]}"
    server = LiveServer(
        tmp_path_factory.mktemp("redis-sockets"), {"REDIS_URL": REDIS_URL, "REDIS_PREFIX": prefix}
    )
    server.prefix = prefix
    try:
        server.prepare({USERNAME: PASSWORD})
        server.start()
        yield server
    finally:
        server.stop()
        client = redis.Redis.from_url(REDIS_URL)
        for key in client.scan_iter(f"{prefix}*"):
            client.delete(key)


def group_members(prefix: str) -> int:
    """Count the tabs the layer has in conversation groups, in Redis."""
    client = redis.Redis.from_url(REDIS_URL)
    return sum(client.zcard(key) for key in client.scan_iter(f"{prefix}:group:*"))


def test_an_idle_tab_keeps_its_socket_and_still_gets_the_next_question(server):
    person = Person(server)
    conversation = person.start_conversation(server, "deploy-assistant")
    with person.open_tab(server, conversation) as tab:
        # Three of the layer's 5 s blocking reads from Redis pass with nothing to send;
        # a socket the server closed would raise ConnectionClosed here instead.
        with pytest.raises(TimeoutError):
            tab.socket.recv(timeout=16)

        person.post(server, f"/c/{conversation}/send", {"text": "Ship it"})
        tab.wait_for("Which environment should I deploy to?")

    assert "Timeout reading" not in server.log()


def test_a_burst_of_closing_tabs_leaves_no_group_membership_in_redis(server):
    person = Person(server)
    conversations = [person.start_conversation(server, "deploy-assistant") for _ in range(20)]
    cookie = "; ".join(f"{name}={value}" for name, value in person.client.cookies.items())
    urls = [
        server.url.replace("http", "ws") + f"/ws/c/{conversations[i % 20]}/" for i in range(TABS)
    ]

    async def open_tab(url: str):
        socket = await connect(url, origin=server.url, additional_headers={"Cookie": cookie})
        await socket.recv(decode=True)  # the resync: the tab has joined its group
        return socket

    async def open_all_then_close_all() -> None:
        sockets = []
        for start in range(0, TABS, 50):  # opened in steps, like people do: only closing is a burst
            sockets += await asyncio.gather(*(open_tab(url) for url in urls[start : start + 50]))
        assert group_members(server.prefix) == TABS
        await asyncio.gather(*(socket.close() for socket in sockets))

    asyncio.run(open_all_then_close_all())

    wait_for(lambda: group_members(server.prefix) == 0, timeout=30,
             message=f"{group_members(server.prefix)} tabs are still members in Redis")  # fmt: skip
    assert "Too many connections" not in server.log()

"""Open tabs on the Redis channel layer: an idle socket stays open, and a burst of closing
tabs (a restart or a proxy reload drops every tab at once) leaves no subscription behind; nor
do health probes and waiting API calls.

One daphne on SQLite with the machine's Redis under a key prefix of its own.
"""

import asyncio
import uuid

import pytest
import redis
from websockets.asyncio.client import connect

from tests.support.live_server import LiveServer, wait_for
from tests.test_api_long_poll import api_client, ask, make_key
from tests.test_scaleout import PASSWORD, REDIS_URL, USERNAME, Person, require_services

TABS = 500  # a burst that exhausted the pool of 100 connections of the layer used before


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


def subscriptions(prefix: str) -> int:
    """Count the layer's channels with a subscriber in Redis: one per open tab, one per group
    with a tab in this server, one per waiting call."""
    client = redis.Redis.from_url(REDIS_URL)
    return sum(
        len(client.pubsub_channels(f"{prefix}{kind}*")) for kind in ("specific.", "__group__")
    )


def wait_until_none_subscribed(prefix: str, timeout: float) -> None:
    wait_for(
        lambda: subscriptions(prefix) == 0,
        timeout=timeout,
        message=f"{subscriptions(prefix)} channels still subscribed",
    )


def test_an_idle_tab_keeps_its_socket_and_still_gets_the_next_question(server):
    person = Person(server)
    conversation = person.start_conversation(server, "deploy-assistant")
    with person.open_tab(server, conversation) as tab:
        # Longer than the layer's 10 s socket timeout passes with nothing to send; a socket
        # the server closed would raise ConnectionClosed here instead.
        with pytest.raises(TimeoutError):
            tab.socket.recv(timeout=16)

        person.post(server, f"/c/{conversation}/send", {"text": "Ship it"})
        tab.wait_for("Which environment should I deploy to?")

    assert "Timeout reading" not in server.log()


def test_a_burst_of_closing_tabs_leaves_no_subscription_in_redis(server):
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
        # Opened a few at a time, as people do: only closing is a burst. (daphne gives a
        # handshake 5 s, and one process's handshakes take turns on its database thread.)
        for start in range(0, TABS, 10):
            sockets += await asyncio.gather(*(open_tab(url) for url in urls[start : start + 10]))
        # Each tab, each conversation, and the person's own group (notifications elsewhere).
        assert subscriptions(server.prefix) == TABS + 20 + 1
        await asyncio.gather(*(socket.close() for socket in sockets))

    asyncio.run(open_all_then_close_all())

    wait_until_none_subscribed(server.prefix, timeout=30)
    assert "Traceback" not in server.log()


def test_health_probes_and_waiting_api_calls_leave_no_subscription(server):
    person = Person(server)
    for _ in range(5):  # an orchestrator probes every few seconds, for as long as the server runs
        assert person.client.get("/healthz").json()["checks"]["channel_layer"] == "ok"
    key = make_key(server, USERNAME)

    async def wait_until_run_out_then_until_answered() -> list[str]:
        async with api_client(server, key, timeout=30) as api:
            _, part_id = await ask(api)
            ran_out = await api.get(f"/requests/{part_id}", params={"wait": 1})
            waiting = asyncio.create_task(api.get(f"/requests/{part_id}", params={"wait": 20}))
            await asyncio.to_thread(
                wait_for, lambda: subscriptions(server.prefix) == 2, 10, 0.05, "no call waits"
            )
            answer = {"action": "accept", "answer.env": "staging"}
            await asyncio.to_thread(person.post, server, f"/parts/{part_id}/settle", answer)
            return [ran_out.json()["state"], (await waiting).json()["state"]]

    assert asyncio.run(wait_until_run_out_then_until_answered()) == ["pending", "submitted"]
    wait_until_none_subscribed(server.prefix, timeout=10)

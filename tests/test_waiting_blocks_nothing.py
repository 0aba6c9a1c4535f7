"""While a hundred API calls wait, the rest of a real daphne goes on: another
token's call, a page load, a websocket connect with its database lookup, an agent run, and a
cancel. Each is asserted to finish while every long-poll still waits, not within a budget.
Both stacks: the embedded one, and PostgreSQL + Redis with a separate agent worker."""

import asyncio
import re

import httpx
import psutil
import pytest
from django.conf import settings
from django.utils.module_loading import import_string
from websockets.asyncio.client import connect

from tests.support.live_server import LiveClient, LiveServer, wait_for
from tests.test_api_long_poll import api_client, ask, make_key
from tests.test_scaleout import (
    PostgresDatabase,
    Worker,
    clear_redis_prefix,
    require_services,
    scaleout_env,
)

USERS = {"alice": "alice-password-1", "bob": "bob-password-1"}


@pytest.fixture(scope="module", params=["embedded", "scale-out"])
def server(request, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("daphne")
    env = {"API_RATE_LIMIT": "10000/m"}
    database = worker = None
    if request.param == "scale-out":
        require_services()
        database = PostgresDatabase()
        env |= scaleout_env(database, workdir)
    server = LiveServer(workdir, env=env)
    try:
        server.prepare(USERS)
        server.start()
        if database:
            worker = Worker(server.env, workdir / "worker.log")
        yield server
    finally:
        for process in (server, worker):
            if process:
                process.stop()
        if database:
            database.drop()
            clear_redis_prefix(f"test-{database.name}")


def _connections(server: LiveServer) -> int:
    daphne = psutil.Process(server.process.pid)
    return sum(1 for c in daphne.net_connections("tcp") if c.status == psutil.CONN_ESTABLISHED)


async def _start_waiting(server: LiveServer, api, part_id: int, count: int) -> list[asyncio.Task]:
    """Send `count` long-polls of 60 s and return once daphne holds all their connections.

    `api` must be a client of its own: a connection it already has open would not be counted.
    """
    before = await asyncio.to_thread(_connections, server)
    polls = [
        asyncio.create_task(api.get(f"/requests/{part_id}", params={"wait": 60}))
        for _ in range(count)
    ]
    await asyncio.to_thread(
        wait_for, lambda: _connections(server) >= before + count, 30, 0.05, "polls never connected"
    )
    return polls


def _open_deploy_chat(person: LiveClient) -> int:
    status, html = person.post("/agents/deploy-assistant/new", {})
    assert status == 200, html
    return int(re.search(r'ws-connect="/ws/c/(\d+)/"', html).group(1))


def _asks(person: LiveClient, conversation_id: int) -> bool:
    return 'data-state="pending"' in person.get(f"/c/{conversation_id}/")[1]


OTHERS_SECONDS = 50  # under the polls' 60 s wait


async def test_the_server_goes_on_while_a_hundred_long_polls_wait(server):
    waiting = 100
    alice_key, bob_key = make_key(server, "alice"), make_key(server, "bob")
    limits = httpx.Limits(max_connections=waiting)
    async with (
        api_client(server, alice_key) as alice,
        api_client(server, alice_key, limits=limits, timeout=90) as pollers,
        # Held behind a waiting call, bob's call and socket would wait the polls' full 60 s: each
        # may take up to 50 s, and the polls are asserted still waiting after all of it. (httpx's
        # default 5 s was a budget in disguise: under two busy loops in scale-out, the lookups of
        # a hundred polls that had just connected, not their waits, took longer than that.)
        api_client(server, bob_key, timeout=OTHERS_SECONDS) as bob,
    ):
        _, part_id = await ask(alice)
        bobs_conversation, _ = await ask(bob)
        polls = await _start_waiting(server, pollers, part_id, waiting)

        # Another token's call: queued behind a held thread, it would wait the full 60 s.
        listed = await bob.get(f"/conversations/{bobs_conversation}/requests")
        assert listed.status_code == 200 and len(listed.json()) == 1

        # A page load and a chat socket whose connect looks the conversation up.
        person = await asyncio.to_thread(LiveClient, server, "bob", USERS["bob"])
        chat_id = await asyncio.to_thread(_open_deploy_chat, person)
        cookie = "; ".join(f"{c.name}={c.value}" for c in person.cookies)
        socket_url = server.url.replace("http", "ws") + f"/ws/c/{chat_id}/"
        async with connect(
            socket_url,
            origin=server.url,
            additional_headers={"Cookie": cookie},
            open_timeout=OTHERS_SECONDS,
        ):
            pass  # connected: the lookup answered and the handshake completed

        # An agent run: the deploy assistant asks its first question.
        await asyncio.to_thread(person.post, f"/c/{chat_id}/send", {"text": "deploy"})
        await asyncio.to_thread(wait_for, lambda: _asks(person, chat_id), 30)

        assert not any(poll.done() for poll in polls), "a long-poll ended before its answer"
        await asyncio.to_thread(_answer, server, part_id)
        responses = await asyncio.gather(*polls)
    assert {response.json()["state"] for response in responses} == {"submitted"}


def _answer(server: LiveServer, part_id: int) -> None:
    person = LiveClient(server, "alice", USERS["alice"])
    status, _ = person.post(
        f"/parts/{part_id}/settle", {"action": "accept", "answer.env": "staging"}
    )
    assert status == 200


async def test_a_cancel_during_a_long_wait_ends_the_wait_as_cancelled(server):
    key = make_key(server, "alice")
    async with api_client(server, key) as api, api_client(server, key, timeout=30) as poller:
        _, part_id = await ask(api)
        (poll,) = await _start_waiting(server, poller, part_id, 1)
        cancelled = await api.post(f"/requests/{part_id}/cancel")
        assert cancelled.status_code == 200 and cancelled.json()["state"] == "cancelled"
        # Woken by the cancel: a call that missed it would wait 60 s and time out at 30.
        response = await poll
    assert response.json()["state"] == "cancelled"
    assert response.json()["envelope"] == {"action": "cancel"}


def test_every_middleware_can_run_without_a_thread():
    """A sync-only middleware would hold the shared thread for as long as a request waits."""
    sync_only = [
        path for path in settings.MIDDLEWARE if not getattr(import_string(path), "async_capable", 0)
    ]
    assert sync_only == []

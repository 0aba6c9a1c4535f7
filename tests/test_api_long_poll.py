"""Long-polls against a real daphne (`manage.py serve`): a settle in the chat answers the
waiting API call at once, and 200 calls waiting at the same time hold no server threads."""

import asyncio

import httpx
import psutil
import pytest

from tests.support.api_support import ASK
from tests.support.live_server import LiveClient, LiveServer, wait_for

PASSWORD = "alice-password-1"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("daphne"), env={"API_RATE_LIMIT": "10000/m"})
    server.prepare({"alice": PASSWORD})
    server.start()
    yield server
    server.stop()


def make_key(server: LiveServer, username: str = "alice") -> str:
    script = (
        "from django.contrib.auth.models import User\n"
        "from playground.api.tokens import create_token\n"
        f"print(create_token(User.objects.get(username={username!r}), 'poller')[1])\n"
    )
    return server.manage("shell", "-v0", "-c", script).strip()


def api_client(server: LiveServer, key: str, **options) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        base_url=server.url + "/api/v1", headers={"Authorization": f"Bearer {key}"}, **options
    )


async def ask(api: httpx.AsyncClient) -> tuple[int, int]:
    opened = await api.post("/conversations", json={"agentName": "Deploy bot"})
    conversation_id = opened.json()["id"]
    asked = await api.post(f"/conversations/{conversation_id}/requests", json=ASK)
    assert asked.status_code == 201, asked.text
    return conversation_id, asked.json()["id"]


def answer_in_the_chat(server: LiveServer, part_id: int) -> None:
    person = LiveClient(server, "alice", PASSWORD)
    answer = {"action": "accept", "answer.env": "staging"}
    status, _ = person.post(f"/parts/{part_id}/settle", answer)
    assert status == 200


async def test_an_answer_in_the_chat_answers_the_waiting_call(server):
    daphne = psutil.Process(server.process.pid)
    key = make_key(server)
    async with api_client(server, key) as api, api_client(server, key, timeout=30) as poller:
        _, part_id = await ask(api)
        connected = _connections(daphne)
        waiting = asyncio.create_task(poller.get(f"/requests/{part_id}", params={"wait": 60}))
        await asyncio.to_thread(wait_for, lambda: _connections(daphne) > connected)
        await asyncio.to_thread(answer_in_the_chat, server, part_id)
        # Woken by the settlement: a call that missed it would wait 60 s and time out at 30.
        response = await waiting
    assert response.status_code == 200
    assert response.json()["state"] == "submitted"
    assert response.json()["envelope"] == {"action": "accept", "content": {"env": "staging"}}


async def test_two_hundred_waiting_calls_hold_no_threads(server):
    daphne = psutil.Process(server.process.pid)
    limits = httpx.Limits(max_connections=250)
    async with api_client(server, make_key(server), timeout=60, limits=limits) as api:
        _, part_id = await ask(api)
        threads_before = daphne.num_threads()
        polls = [
            asyncio.create_task(api.get(f"/requests/{part_id}", params={"wait": 60}))
            for _ in range(200)
        ]
        await asyncio.to_thread(
            wait_for, lambda: _connections(daphne) >= 200, 30, 0.1, "200 calls never connected"
        )
        threads_waiting = daphne.num_threads()
        await asyncio.to_thread(answer_in_the_chat, server, part_id)
        responses = await asyncio.gather(*polls)
    assert {response.json()["state"] for response in responses} == {"submitted"}
    # A thread per waiting call would add 200; the pooled threads that did the lookups stay.
    assert threads_waiting - threads_before < 20


def _connections(process: psutil.Process) -> int:
    return sum(1 for c in process.net_connections("tcp") if c.status == psutil.CONN_ESTABLISHED)

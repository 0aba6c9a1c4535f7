"""The same Idempotency-Key sent twice at the same moment, on PostgreSQL (where two calls of
one token really run at once): the question is asked once, and both calls get it back."""

import asyncio

import httpx
import pytest

from tests.support.api_support import ASK
from tests.support.live_server import LiveServer
from tests.test_api_long_poll import api_client, make_key
from tests.test_scaleout import PostgresDatabase, require_services, scaleout_env

PAIRS = 10


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_services()
    workdir = tmp_path_factory.mktemp("idempotency")
    database = PostgresDatabase()
    server = LiveServer(
        workdir, env={**scaleout_env(database, workdir), "API_RATE_LIMIT": "10000/m"}
    )
    try:
        server.prepare({"alice": "alice-password-1"})
        server.start()
        yield server
    finally:
        server.stop()
        database.drop()


async def test_the_same_key_twice_at_once_asks_once_and_answers_both(server):
    limits = httpx.Limits(max_connections=2 * PAIRS)
    async with api_client(server, make_key(server), limits=limits, timeout=30) as api:
        opened = await api.post("/conversations", json={"agentName": "Deploy bot"})
        asks = f"/conversations/{opened.json()['id']}/requests"

        async def twice(n: int) -> list[httpx.Response]:
            headers = {"Idempotency-Key": f"at-once-{n}"}
            return await asyncio.gather(*(api.post(asks, json=ASK, headers=headers) for _ in "ab"))

        pairs = await asyncio.gather(*(twice(n) for n in range(PAIRS)))
        asked = (await api.get(asks)).json()
    for first, second in pairs:
        assert (first.status_code, second.status_code) == (201, 201), second.text
        assert first.json()["id"] == second.json()["id"]
    assert len(asked) == PAIRS

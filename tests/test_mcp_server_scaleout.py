"""/mcp in scale-out (PostgreSQL + Redis): two web processes serve it with no sticky routing.
A call held by one is answered through the other, and a task made on one is polled on the
other, since the server is stateless and a task is a row."""

import asyncio

import pytest

from tests.support.live_server import LiveServer, wait_for
from tests.test_mcp_server import ASK, STAGING, RawMcp, answer, make_key, sdk_client
from tests.test_scaleout import (
    PostgresDatabase,
    clear_redis_prefix,
    require_services,
    scaleout_env,
)

PASSWORD = "alice-password-1"


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    require_services()
    workdir = tmp_path_factory.mktemp("mcp-scaleout")
    database = PostgresDatabase()
    env = scaleout_env(database, workdir)
    (workdir / "a").mkdir(), (workdir / "b").mkdir()
    server_a, server_b = LiveServer(workdir / "a", env), LiveServer(workdir / "b", env)
    try:
        server_a.prepare({"alice": PASSWORD})
        server_a.start()
        server_b.start()
        yield server_a, server_b, database
    finally:
        for server in (server_a, server_b):
            server.stop()
        database.drop()
        clear_redis_prefix(env["REDIS_PREFIX"])


def one_pending(database: PostgresDatabase, message: str) -> int:
    sql = "SELECT id FROM elicitation_part WHERE state = 'pending' AND payload::text LIKE %s"
    (row,) = wait_for(lambda: database.query(sql, (f"%{message}%",)), message="never asked")
    return row[0]


async def test_a_call_held_by_one_process_is_answered_through_the_other(stack):
    server_a, server_b, database = stack
    key = make_key(server_a, "alice")
    question = {**ASK, "message": "Held on A, answered on B?"}
    async with sdk_client(server_a, key) as client:
        call = asyncio.create_task(client.call_tool("request_input", question))
        part_id = await asyncio.to_thread(one_pending, database, question["message"])
        settled = await asyncio.to_thread(answer, server_b, "alice", part_id, {"env": "staging"})
        assert settled == 200
        result = await call
    assert result.structured_content == STAGING


def test_a_task_made_on_one_process_is_polled_on_the_other(stack):
    server_a, server_b, database = stack
    key = make_key(server_a, "alice")
    made = RawMcp(server_a, key).task("request_input", {**ASK, "message": "Task on A?"})
    on_b = RawMcp(server_b, key)
    assert on_b.call("tasks/get", {"taskId": made["taskId"]})["result"]["status"] == "working"
    part_id = one_pending(database, "Task on A?")
    assert answer(server_b, "alice", part_id, {"env": "staging"}) == 200
    result = on_b.call("tasks/result", {"taskId": made["taskId"]})["result"]
    assert result["structuredContent"] == STAGING

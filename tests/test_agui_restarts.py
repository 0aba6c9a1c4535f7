"""An AG-UI agent's question survives a SIGKILL of the playground: after the restart the answer
starts the next run, and the agent receives the tool result exactly once."""

import json

import pytest

from tests.agui_support import PYDANTIC_SERVER, AguiServer, agents_file
from tests.live_server import FAST_RECOVERY, LiveClient, LiveServer, wait_for

USERS = {"alice": "alice-password-1"}


@pytest.fixture
def agent(tmp_path):
    started = AguiServer(PYDANTIC_SERVER, tmp_path / "runs.log")
    yield started
    started.stop()


@pytest.fixture
def server(tmp_path, agent):
    path = agents_file(tmp_path, agent.url("ask"))
    server = LiveServer(tmp_path, env={"AGUI_AGENTS_FILE": str(path), **FAST_RECOVERY})
    server.prepare(USERS)
    server.start()
    yield server
    server.stop()


def one(server: LiveServer, sql: str, *params):
    rows = server.query(sql, params)
    return rows[0][0] if rows else None


def test_the_answer_after_a_restart_reaches_the_agent_exactly_once(server, agent):
    client = LiveClient(server, "alice", USERS["alice"])
    _, home = client.get("/")
    assert "Test agent" in home  # the declared agent is on the home page
    _, page = client.post("/agents/agui-test/new", {})
    conversation_id = int(page.split('ws-connect="/ws/c/')[1].split("/")[0])
    client.post(f"/c/{conversation_id}/send", {"text": "paint it"})
    part_id = wait_for(
        lambda: one(server, "SELECT id FROM elicitation_part WHERE state = ?", "pending")
    )

    server.kill()  # while the question waits: nothing is held for it
    server.start()
    assert len(agent.runs("ask")) == 1  # the restart sent no run again
    client = LiveClient(server, "alice", USERS["alice"])
    client.post(f"/parts/{part_id}/settle", {"action": "accept", "answer.colour": "green"})
    wait_for(lambda: one(server, "SELECT status FROM playground_turn") == "done")

    runs = agent.runs("ask")
    assert len(runs) == 2
    results = [m for m in runs[1]["messages"] if m["role"] == "tool"]
    assert len(results) == 1
    assert json.loads(results[0]["content"]) == {"action": "accept", "content": {"colour": "green"}}
    said = server.query("SELECT text FROM playground_message WHERE role = 'agent'")
    assert said == [("You picked green.",)]

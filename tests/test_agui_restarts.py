"""An AG-UI agent's question survives a SIGKILL of the playground: after the restart the answer
starts the next run, and the agent receives the tool result exactly once."""

import json

import pytest

from tests.support.agui_support import PYDANTIC_SERVER, AguiServer, agents_file
from tests.support.live_server import LiveClient, wait_for
from tests.support.restart_support import USERS, chat_until_asked, one, serving


@pytest.fixture
def agent(tmp_path):
    started = AguiServer(PYDANTIC_SERVER, tmp_path / "runs.log")
    yield started
    started.stop()


@pytest.fixture
def server(tmp_path, agent):
    path = agents_file(tmp_path, agent.url("ask"))
    yield from serving(tmp_path, {"AGUI_AGENTS_FILE": str(path)})


def test_the_answer_after_a_restart_reaches_the_agent_exactly_once(server, agent):
    _, home = LiveClient(server, "alice", USERS["alice"]).get("/")
    assert "Test agent" in home  # the declared agent is on the home page
    _, _, part_id = chat_until_asked(server, "/agents/agui-test/new", {}, "paint it")

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

"""Kill the server (SIGKILL) mid-question and mid-step: then nothing is lost or doubled."""

import re

import pytest

from tests.support.live_server import LiveClient, LiveServer, wait_for

USERS = {"alice": "alice-password-1"}


@pytest.fixture
def server(tmp_path):
    markers = tmp_path / "markers"
    markers.mkdir()
    server = LiveServer(
        tmp_path,
        env={"AGENT_MODULES": "tests.support.runtime_agents", "TEST_MARKER_DIR": str(markers)},
    )
    server.markers = markers
    server.prepare(USERS)
    server.start()
    yield server
    server.stop()


def start_conversation(client: LiveClient, slug: str) -> int:
    status, html = client.post(f"/agents/{slug}/new", {})
    assert status == 200, html
    return int(re.search(r'ws-connect="/ws/c/(\d+)/"', html).group(1))


def agent_messages(server: LiveServer, conversation_id: int) -> list[str]:
    return [
        text
        for (text,) in server.query(
            "SELECT m.text FROM playground_message m JOIN playground_turn t ON m.turn_id = t.id "
            'WHERE t.conversation_id = ? ORDER BY t."index", m.call_index',
            (conversation_id,),
        )
    ]


def pending_part(server: LiveServer, conversation_id: int):
    rows = server.query(
        "SELECT id FROM elicitation_part WHERE conversation_id = ? AND state = 'pending'",
        (conversation_id,),
    )
    return rows[0][0] if rows else None


def test_a_pending_question_survives_a_kill_and_still_accepts(server):
    client = LiveClient(server, "alice", USERS["alice"])
    conversation_id = start_conversation(client, "deploy-assistant")
    client.post(f"/c/{conversation_id}/send", {"text": "deploy"})
    part_id = wait_for(lambda: pending_part(server, conversation_id), message="no question")

    server.kill()
    server.start()

    client = LiveClient(server, "alice", USERS["alice"])
    status, page = client.get(f"/c/{conversation_id}/")
    assert f'id="part-{part_id}"' in page and 'data-state="pending"' in page
    status, _ = client.post(
        f"/parts/{part_id}/settle", {"action": "accept", "answer.environment": "staging"}
    )
    assert status == 200
    approval = wait_for(lambda: pending_part(server, conversation_id), message="no approval")
    client.post(f"/parts/{approval}/settle", {"action": "accept", "answer.scope": "once"})
    wait_for(lambda: len(agent_messages(server, conversation_id)) == 1, message="no reply")
    assert agent_messages(server, conversation_id)[0].startswith("Deployed **main** to **Staging**")


def test_a_run_killed_mid_step_resumes_after_restart_without_duplicates(server):
    client = LiveClient(server, "alice", USERS["alice"])
    conversation_id = start_conversation(client, "test-slow")
    client.post(f"/c/{conversation_id}/send", {"text": "go"})
    started = server.markers / "started"
    # Waits for the step's mark, not for the file: the step creates the file and then writes
    # its "x", and a kill between the two (seen under load) left "" for the rerun to make "x".
    wait_for(lambda: started.exists() and started.read_text() == "x", message="no slow step")
    assert agent_messages(server, conversation_id) == ["First step: fast result."]

    server.kill()
    assert server.query("SELECT status FROM playground_turn") == [("running",)]
    server.start()

    # The interrupted step had not been recorded, so it runs again; the recorded one does not.
    wait_for(lambda: started.read_text() == "xx", message="the run was not picked up again")
    (server.markers / "release").touch()
    wait_for(
        lambda: server.query("SELECT status FROM playground_turn") == [("done",)],
        message="the run did not finish",
    )
    assert agent_messages(server, conversation_id) == [
        "First step: fast result.",
        "Second step: slow result.",
    ]
    assert (server.markers / "fast").read_text() == "x"
    assert server.query("SELECT name FROM playground_step ORDER BY call_index") == [
        ("fast",),
        ("slow",),
    ]

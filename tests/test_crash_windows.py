"""No crash window strands an answered question: the answer and the resumption commit together,
and the embedded server recovers at start-up and every few seconds, with no visitor needed."""

import contextlib
import sqlite3
import time

import pytest
from django.test import Client

from elicitation.models import Part
from playground.runs.models import Turn
from tests.support.live_server import FAST_RECOVERY, LiveClient, LiveServer, wait_for
from tests.support.runtime_helpers import answer, pending, send, start

USERS = {"alice": "alice-password-1"}


@pytest.mark.django_db
def test_a_settled_answer_has_already_queued_its_turn_when_it_commits(
    client: Client, alice, django_capture_on_commit_callbacks
):
    client.force_login(alice)
    conversation = start(alice, "test-greeter")
    with django_capture_on_commit_callbacks(execute=True):
        send(client, conversation, "hi")  # runs inline: the turn now waits at the question
    part = pending(conversation)
    with django_capture_on_commit_callbacks(execute=False):  # as if the process died at commit
        assert answer(client, part, name="Ada").status_code == 200
    part.refresh_from_db()
    assert part.state == Part.State.SUBMITTED
    assert Turn.objects.get(conversation=conversation).status == Turn.Status.QUEUED


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One embedded server for the module; each test leaves it running. Short heartbeats, so a
    dead run is seen within a second."""
    server = LiveServer(
        tmp_path_factory.mktemp("crash"),
        env={
            "AGENT_MODULES": "tests.support.runtime_agents",
            **FAST_RECOVERY,
        },
    )
    server.prepare(USERS)
    server.start()
    yield server
    server.stop()


def conversation_with_a_question(server: LiveServer) -> tuple[LiveClient, int, int]:
    """Ask the Deploy assistant to deploy and wait for its first question; return the ids."""
    client = LiveClient(server, "alice", USERS["alice"])
    _, page = client.post("/agents/deploy-assistant/new", {})
    conversation_id = int(page.split('ws-connect="/ws/c/')[1].split("/")[0])
    client.post(f"/c/{conversation_id}/send", {"text": "hi"})
    part_id = wait_for(lambda: pending_part(server, conversation_id), message="no question")
    return client, conversation_id, part_id


def pending_part(server: LiveServer, conversation_id: int) -> int | None:
    rows = server.query(
        "SELECT id FROM elicitation_part WHERE conversation_id = ? AND state = 'pending'",
        (conversation_id,),
    )
    return rows[0][0] if rows else None


def turn_status(server: LiveServer, conversation_id: int) -> str:
    return server.query(
        "SELECT status FROM playground_turn WHERE conversation_id = ?", (conversation_id,)
    )[0][0]


def asked(server: LiveServer, conversation_id: int) -> list[tuple[str, str]]:
    """Return (kind, state) of each question in the conversation, in order."""
    return server.query(
        "SELECT render_kind, state FROM elicitation_part WHERE conversation_id = ? "
        "ORDER BY call_index",
        (conversation_id,),
    )


def resumed_to_the_approval(server: LiveServer, conversation_id: int) -> bool:
    """The run went on past the answer: it now asks for approval (and waits again)."""
    return (
        asked(server, conversation_id)
        == [
            ("elicitation", "submitted"),
            ("approval", "pending"),
        ]
        and turn_status(server, conversation_id) == "waiting"
    )


def test_a_kill_right_after_the_answer_commits_loses_nothing_after_restart(server):
    server.ensure_running()
    _, conversation_id, part_id = conversation_with_a_question(server)
    server.stop()
    server.env["DIE_AFTER_SETTLING"] = "1"
    server.start()
    client = LiveClient(server, "alice", USERS["alice"])
    with contextlib.suppress(OSError):  # the server dies before it can answer
        client.post(
            f"/parts/{part_id}/settle", {"action": "accept", "answer.environment": "staging"}
        )
    server.process.wait(timeout=10)
    # The answer was saved, and its turn queued with it. The runner, woken by that commit,
    # may even have run on to the next question before the kill landed.
    assert asked(server, conversation_id) in (
        [("elicitation", "submitted")],
        [("elicitation", "submitted"), ("approval", "pending")],
    )
    assert turn_status(server, conversation_id) in ("queued", "running", "waiting")

    del server.env["DIE_AFTER_SETTLING"]
    server.start_without_visiting()
    wait_for(  # the server is starting: give it a loaded machine's start-up time
        lambda: resumed_to_the_approval(server, conversation_id), timeout=60, message="not resumed"
    )


def test_the_embedded_server_resumes_a_stranded_answered_turn_at_start_up(server):
    server.ensure_running()
    _, conversation_id, part_id = conversation_with_a_question(server)
    server.stop()
    # What older versions could leave behind: the answer saved, the turn still waiting.
    with sqlite3.connect(server.db_path) as database:
        database.execute(
            "UPDATE elicitation_part SET state = 'submitted', settled_at = CURRENT_TIMESTAMP, "
            """response = '{"action": "accept", "content": {"environment": "staging"}}' """
            "WHERE id = ?",
            (part_id,),
        )
    assert turn_status(server, conversation_id) == "waiting"
    server.start_without_visiting()
    wait_for(  # the server is starting: give it a loaded machine's start-up time
        lambda: resumed_to_the_approval(server, conversation_id), timeout=60, message="not resumed"
    )


def test_the_embedded_server_picks_up_a_run_that_died_outside_the_agent(server):
    server.ensure_running()
    _, conversation_id, part_id = conversation_with_a_question(server)
    # A runner that lost its database mid-run leaves the turn "running", heartbeat stopped.
    stale = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(time.time() - 60))
    with sqlite3.connect(server.db_path, timeout=20) as database:
        database.execute(
            "UPDATE elicitation_part SET state = 'submitted', settled_at = CURRENT_TIMESTAMP, "
            """response = '{"action": "accept", "content": {"environment": "staging"}}' """
            "WHERE id = ?",
            (part_id,),
        )
        database.execute(
            "UPDATE playground_turn SET status = 'running', run_token = 'dead', "
            "heartbeat_at = ? WHERE conversation_id = ?",
            (stale, conversation_id),
        )
    wait_for(lambda: resumed_to_the_approval(server, conversation_id), message="not picked up")

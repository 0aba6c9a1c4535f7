"""MCP servers behind a real playground (daphne, the embedded runner): legacy sessions held
while a question waits, server crashes, timeouts, and restarts of the playground (SIGKILL)."""

import sys

import pytest

from tests.support.live_server import FAST_RECOVERY, LiveClient, LiveServer, wait_for
from tests.support.mcp_support import TEST_SERVER

# Starting the playground and the MCP server processes is most of the time, on a busy machine.
pytestmark = pytest.mark.timeout(300)

USERS = {"alice": "alice-password-1"}
ANSWER = {
    "name": "Ada",
    "age": "36",
    "height": "1.7",
    "subscribe": "false",
    "plan": "free",
    "email": "ada@example.com",
    "birthday": "1815-12-10",
}


def servers_file(path) -> str:
    entries = []
    for name, protocol, hold in (
        ("modern", "auto", 30),
        ("legacy", "legacy", 30),
        ("brief", "legacy", 0.05),
        ("auto", "auto", 30),
    ):
        entries.append(
            f'[servers.{name}]\ntransport = "stdio"\ncommand = "{sys.executable}"\n'
            f'args = ["{TEST_SERVER}"]\nenv = ["MCP_TEST_LOG"]\nprotocol = "{protocol}"\n'
            f"hold_minutes = {hold}\n"
        )
    path.write_text("\n".join(entries))
    return str(path)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("mcp-live")
    server = LiveServer(
        workdir,
        env={
            "MCP_SERVERS_FILE": servers_file(workdir / "servers.toml"),
            "MCP_TEST_LOG": str(workdir / "completions.log"),
            **FAST_RECOVERY,
        },
    )
    server.prepare(USERS)
    server.start()
    yield server
    server.stop()


def completions(server: LiveServer) -> int:
    log = server.workdir / "completions.log"
    return log.read_text().count("profile") if log.exists() else 0


def ask(server: LiveServer, agent: str, text: str) -> tuple[LiveClient, int]:
    """Start a conversation with an MCP server's agent, send `text`; return client and id."""
    server.ensure_running()
    client = LiveClient(server, "alice", USERS["alice"])
    _, page = client.post(f"/agents/mcp-{agent}/new", {})
    conversation_id = int(page.split('ws-connect="/ws/c/')[1].split("/")[0])
    client.post(f"/c/{conversation_id}/send", {"text": text})
    return client, conversation_id


def question(server: LiveServer, conversation_id: int, state: str = "pending") -> int:
    """Return the newest question asked after the person's message (not the opening turn's
    tool picker, which a tool called by name cancels)."""

    def find():
        rows = server.query(
            "SELECT p.id FROM elicitation_part p JOIN playground_turn t ON p.turn_id = t.id "
            "WHERE p.conversation_id = ? AND p.state = ? AND p.render_kind = 'elicitation' "
            "AND t.text <> '' ORDER BY p.id DESC",
            (conversation_id, state),
        )
        return rows[0][0] if rows else None

    return wait_for(
        find, timeout=30, message=lambda: f"no {state} question: {server.log()[-3000:]}"
    )


def messages(server: LiveServer, conversation_id: int, role: str) -> list[str]:
    rows = server.query(
        "SELECT m.text FROM playground_message m JOIN playground_turn t ON m.turn_id = t.id "
        "WHERE t.conversation_id = ? AND m.role = ? ORDER BY m.call_index",
        (conversation_id, role),
    )
    return [text for (text,) in rows]


def said_eventually(server, conversation_id, role: str, fragment: str) -> list[str]:
    return wait_for(
        lambda: [m for m in messages(server, conversation_id, role) if fragment in m],
        timeout=30,
        message=lambda: (
            f"no {role} message with {fragment!r}: {messages(server, conversation_id, role)}"
        ),
    )


def settle(client: LiveClient, part_id: int, action: str, **fields) -> int:
    data = {"action": action, **{f"answer.{name}": value for name, value in fields.items()}}
    status, _ = client.post(f"/parts/{part_id}/settle", data)
    return status


def test_a_legacy_session_is_held_until_the_person_answers(server):
    client, conversation_id = ask(server, "legacy", "legacy_profile")
    part_id = question(server, conversation_id)
    assert settle(client, part_id, "accept", **ANSWER) == 200
    [reply] = said_eventually(server, conversation_id, "agent", "Profile: ")
    assert '"age":36' in reply and '"email":"ada@example.com"' in reply


def test_a_degraded_question_answers_the_server_with_the_error(server):
    _, conversation_id = ask(server, "legacy", "ask_secret")
    [error] = said_eventually(server, conversation_id, "error", "ask_secret")
    assert "elicitation: unsupported payload" in error


def test_a_server_that_dies_mid_question_cancels_it_with_a_note(server):
    _, conversation_id = ask(server, "legacy", "crash")
    question(server, conversation_id, "cancelled")
    said_eventually(server, conversation_id, "note", "The session ended before this question")
    [error] = said_eventually(server, conversation_id, "error", "Calling crash failed")
    assert "closed the connection (the server stopped or crashed)" in error


def test_a_question_unanswered_past_the_hold_is_cancelled_with_a_note(server):
    _, conversation_id = ask(server, "brief", "legacy_profile")
    question(server, conversation_id, "cancelled")
    said_eventually(server, conversation_id, "note", "No answer within 0.05 minute(s)")


def test_a_durable_question_survives_a_restart_and_the_tool_completes_once(server):
    client, conversation_id = ask(server, "modern", "profile")
    part_id = question(server, conversation_id)
    before = completions(server)
    server.kill()
    server.start()
    client = LiveClient(server, "alice", USERS["alice"])
    assert settle(client, part_id, "accept", **ANSWER) == 200
    said_eventually(server, conversation_id, "agent", "Profile: ")
    assert completions(server) == before + 1


def test_a_legacy_question_is_cancelled_with_a_note_after_a_restart(server):
    _, conversation_id = ask(server, "legacy", "legacy_profile")
    question(server, conversation_id)
    server.kill()
    server.start()
    question(server, conversation_id, "cancelled")
    said_eventually(server, conversation_id, "note", "The playground restarted while")
    said_eventually(server, conversation_id, "error", "Calling legacy_profile failed")


def test_a_legacy_url_request_completes_when_the_server_says_so(server):
    client, conversation_id = ask(server, "legacy", "legacy_login")
    card = wait_for(
        lambda: server.query(
            "SELECT id FROM elicitation_part WHERE conversation_id = ? AND render_kind = 'url' "
            "AND state = 'pending'",
            (conversation_id,),
        ),
        timeout=30,
    )[0][0]
    assert settle(client, card, "accept") == 200  # Open
    said_eventually(server, conversation_id, "agent", "Login: accept")
    [(state, response)] = server.query(
        "SELECT state, response FROM elicitation_part WHERE conversation_id = ? "
        "AND render_kind = 'url-wait'",
        (conversation_id,),
    )
    assert state == "submitted" and '"accept"' in response


def starts_asking(server: LiveServer) -> int:
    log = server.workdir / "completions.log"
    return log.read_text().count("legacy asking") if log.exists() else 0


def test_the_default_protocol_works_with_a_tool_that_asks_on_its_session(server):
    # `auto` speaks 2026-07-28 to this server, where a pushed question has no way back: the
    # call is made again on a legacy session, once; the next call starts on one.
    before = starts_asking(server)
    for attempts in (2, 1):
        client, conversation_id = ask(server, "auto", "legacy_profile")
        part_id = question(server, conversation_id)
        [(form,)] = server.query("SELECT normalized FROM elicitation_part WHERE id = ?", (part_id,))
        assert '"title": "Profile"' not in form  # the pydantic model's name is no title
        assert settle(client, part_id, "accept", **ANSWER) == 200
        [reply] = said_eventually(server, conversation_id, "agent", "Profile: ")
        assert '"age":36' in reply
        assert messages(server, conversation_id, "error") == []
        assert starts_asking(server) == before + attempts
        before += attempts

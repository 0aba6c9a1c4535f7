"""A conversation keeps one live session with its MCP server (the official reference server from
npm, over stdio, behind a real playground): one server process across several messages, the
-32042 flow finished in one retry on that session, idle sessions closed, and a question held on
a session holding up nothing else (another chat gets its answer meanwhile; the status line says
a question waits, not that the agent works)."""

import json
import os
from pathlib import Path

import pytest

from tests.support.live_server import LiveClient, LiveServer, wait_for
from tests.support.mcp_support import reference_server

pytestmark = pytest.mark.timeout(300)

USERS = {"alice": "alice-password-1"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("mcp-sessions")
    command, *args = reference_server()
    entries = []
    # Each server runs in a folder of its own, so its processes can be told apart and counted.
    for name, idle in (("everything", 5), ("brief", 0.02)):
        (workdir / name).mkdir()
        entries.append(
            f'[servers.{name}]\ntransport = "stdio"\ncommand = {json.dumps(command)}\n'
            f"args = {json.dumps(args)}\ncwd = {json.dumps(str(workdir / name))}\n"
            f"idle_minutes = {idle}\n"
        )
    (workdir / "servers.toml").write_text("\n".join(entries))
    server = LiveServer(workdir, env={"MCP_SERVERS_FILE": str(workdir / "servers.toml")})
    server.prepare(USERS)
    server.start()
    yield server
    server.stop()


def processes(server: LiveServer, name: str) -> list[int]:
    """Return the running processes of the reference server `name` started by the playground."""
    folder = str(server.workdir / name)
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
            parent = int(stat.rpartition(")")[2].split()[1])
            if parent == server.process.pid and os.readlink(entry / "cwd") == folder:
                found.append(int(entry.name))
        except (OSError, ValueError):
            continue  # not a process, or gone meanwhile
    return found


def open_chat(server: LiveServer, name: str) -> tuple[LiveClient, int]:
    client = LiveClient(server, "alice", USERS["alice"])
    _, page = client.post(f"/agents/mcp-{name}/new", {})
    return client, int(page.split('ws-connect="/ws/c/')[1].split("/")[0])


def said(server: LiveServer, conversation_id: int, role: str = "agent") -> list[str]:
    rows = server.query(
        "SELECT m.text FROM playground_message m JOIN playground_turn t ON m.turn_id = t.id "
        'WHERE t.conversation_id = ? AND m.role = ? ORDER BY t."index", m.call_index',
        (conversation_id, role),
    )
    return [text for (text,) in rows]


def said_eventually(server: LiveServer, conversation_id: int, fragment: str) -> str:
    return wait_for(
        lambda: next((t for t in said(server, conversation_id) if fragment in t), None),
        message=f"no {fragment!r}: {said(server, conversation_id, 'error')} "
        f"{said(server, conversation_id)} {server.log()[-2000:]}",
    )


def pending(server: LiveServer, conversation_id: int, kind: str) -> list[tuple[int, dict]]:
    rows = server.query(
        "SELECT id, normalized FROM elicitation_part WHERE conversation_id = ? "
        "AND render_kind = ? AND state = 'pending' ORDER BY id",
        (conversation_id, kind),
    )
    return [(part_id, json.loads(normalized)) for part_id, normalized in rows]


def next_pending(server: LiveServer, conversation_id: int, kind: str) -> tuple[int, dict]:
    return wait_for(
        lambda: (pending(server, conversation_id, kind) or [None])[-1],
        message=f"no pending {kind}: {said(server, conversation_id, 'error')}",
    )


def settle(client: LiveClient, part_id: int, action: str, **fields) -> None:
    data = {"action": action, **{f"answer.{key}": value for key, value in fields.items()}}
    status, _ = client.post(f"/parts/{part_id}/settle", data)
    assert status == 200


def test_one_server_process_serves_the_conversation_across_messages(server):
    client, conversation_id = open_chat(server, "everything")
    wait_for(lambda: pending(server, conversation_id, "elicitation"))  # the tools and "Which tool?"
    for word in ("first", "second", "third"):
        client.post(f"/c/{conversation_id}/send", {"text": f'echo {{"message": "{word}"}}'})
        said_eventually(server, conversation_id, f"Echo: {word}")
    assert len(processes(server, "everything")) == 1
    # The direct calls answered the opening "Which tool?": nothing is left waiting.
    assert pending(server, conversation_id, "elicitation") == []


def test_the_url_required_flow_finishes_in_one_retry_on_the_same_session(server):
    client, conversation_id = open_chat(server, "everything")
    wait_for(lambda: pending(server, conversation_id, "elicitation"))
    arguments = {"url": "https://example.com/consent", "errorPath": True}
    client.post(
        f"/c/{conversation_id}/send", {"text": f"trigger-url-elicitation {json.dumps(arguments)}"}
    )
    # -32042: the prerequisite page, opened, then "I'm done".
    card, page = next_pending(server, conversation_id, "url")
    assert page["url"] == "https://modelcontextprotocol.io"
    settle(client, card, "accept")
    settle(client, next_pending(server, conversation_id, "url-wait")[0], "accept")
    # The retry is recognised: the server now asks for its own page, on the held session.
    card, page = next_pending(server, conversation_id, "url")
    assert page["url"] == "https://example.com/consent"
    settle(client, card, "accept")
    said_eventually(server, conversation_id, "User completed the URL elicitation flow")
    urls = server.query(
        "SELECT normalized FROM elicitation_part WHERE conversation_id = ? AND render_kind = 'url'",
        (conversation_id,),
    )
    assert [json.loads(n)["url"] for (n,) in urls] == [
        "https://modelcontextprotocol.io",
        "https://example.com/consent",
    ]


def test_an_idle_session_is_closed(server):
    client, conversation_id = open_chat(server, "brief")
    client.post(f"/c/{conversation_id}/send", {"text": 'echo {"message": "hello"}'})
    said_eventually(server, conversation_id, "Echo: hello")
    # idle_minutes = 0.02: gone after 1.2 s unused.
    wait_for(lambda: processes(server, "brief") == [], message="the idle session stayed open")


def test_a_held_question_holds_up_nothing_else_and_reads_as_waiting(server):
    client, conversation_id = open_chat(server, "everything")
    wait_for(lambda: pending(server, conversation_id, "elicitation"))
    client.post(f"/c/{conversation_id}/send", {"text": "trigger-elicitation-request"})
    wait_for(
        lambda: [
            p
            for p, form in pending(server, conversation_id, "elicitation")
            if form["message"].startswith("Please provide inputs")
        ]
    )
    # While that session waits on the person, another chat is answered.
    other, other_id = open_chat(server, "everything")
    other.post(f"/c/{other_id}/send", {"text": 'echo {"message": "meanwhile"}'})
    said_eventually(server, other_id, "Echo: meanwhile")
    # The status line counts the question as waiting; the opening "Which tool?" is gone.
    _, page = client.get(f"/c/{conversation_id}/")
    assert 'data-state="idle-1"' in page
    assert "1 question waiting for you" in page
    assert "is working…" not in page
    [(part_id, _)] = pending(server, conversation_id, "elicitation")
    settle(client, part_id, "decline")
    said_eventually(server, conversation_id, "User declined")
    # The admin timeline has the moment the held session delivered the answer.
    [(resumed,)] = server.query("SELECT resumed_at FROM elicitation_part WHERE id = ?", (part_id,))
    assert resumed is not None

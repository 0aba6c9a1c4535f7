"""The official reference server (`@modelcontextprotocol/server-everything` from npm, over
stdio and over Streamable HTTP) behind a real playground: it lists its elicitation tools to
us, as it does to clients that declare elicitation, and its form question is answered with
typed content."""

import json
import os
import socket
import subprocess

import pytest

from tests.support.live_server import LiveClient, LiveServer, free_port, wait_for
from tests.support.mcp_support import reference_server

# Installing the server (once), starting the playground and node: most of the time.
pytestmark = pytest.mark.timeout(300)

USERS = {"alice": "alice-password-1"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("mcp-reference")
    command, entry, _ = reference_server()
    # The same server over Streamable HTTP, on a port of its own.
    port = free_port()
    http = subprocess.Popen(
        [command, entry, "streamableHttp"],
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for(lambda: listening(port), timeout=120, message="the HTTP reference server is not up")
    servers_file = workdir / "servers.toml"
    servers_file.write_text(
        f'[servers.everything]\ntitle = "Everything"\ntransport = "stdio"\n'
        f"command = {json.dumps(command)}\nargs = {json.dumps([entry, 'stdio'])}\n"
        f'\n[servers.everything-http]\ntitle = "Everything over HTTP"\ntransport = "http"\n'
        f'url = "http://127.0.0.1:{port}/mcp"\n'
    )
    server = LiveServer(workdir, env={"MCP_SERVERS_FILE": str(servers_file)})
    server.prepare(USERS)
    server.start()
    yield server
    server.stop()
    http.kill()
    http.wait()


def listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture(params=["everything", "everything-http"])
def name(request) -> str:
    return request.param


def open_chat(server: LiveServer, name: str) -> tuple[LiveClient, int]:
    client = LiveClient(server, "alice", USERS["alice"])
    _, page = client.post(f"/agents/mcp-{name}/new", {})
    return client, int(page.split('ws-connect="/ws/c/')[1].split("/")[0])


def cards(server: LiveServer, conversation_id: int) -> list[dict]:
    rows = server.query(
        "SELECT normalized FROM elicitation_part WHERE conversation_id = ? "
        "AND render_kind = 'display' ORDER BY id",
        (conversation_id,),
    )
    return [json.loads(normalized) for (normalized,) in rows]


def questions(server: LiveServer, conversation_id: int) -> list[tuple[int, dict]]:
    """Return the pending questions asked after the person's message (not the tool picker)."""
    rows = server.query(
        "SELECT p.id, p.normalized FROM elicitation_part p JOIN playground_turn t "
        "ON p.turn_id = t.id WHERE p.conversation_id = ? AND p.render_kind = 'elicitation' "
        "AND p.state = 'pending' AND t.text <> '' ORDER BY p.id",
        (conversation_id,),
    )
    return [(part_id, json.loads(normalized)) for part_id, normalized in rows]


def said(server: LiveServer, conversation_id: int, role: str = "agent") -> list[str]:
    rows = server.query(
        "SELECT m.text FROM playground_message m JOIN playground_turn t ON m.turn_id = t.id "
        'WHERE t.conversation_id = ? AND m.role = ? ORDER BY t."index", m.call_index',
        (conversation_id, role),
    )
    return [text for (text,) in rows]


def test_its_elicitation_tools_are_listed(server, name):
    _, conversation_id = open_chat(server, name)
    [card] = wait_for(lambda: cards(server, conversation_id), message=server.log()[-3000:])
    names = [row[0] for row in card["table"]["rows"]]
    assert "trigger-elicitation-request" in names
    assert "trigger-url-elicitation" in names


def test_its_form_question_is_answered_with_typed_content(server, name):
    client, conversation_id = open_chat(server, name)
    client.post(f"/c/{conversation_id}/send", {"text": "trigger-elicitation-request"})
    [(part_id, question)] = wait_for(
        lambda: questions(server, conversation_id),
        message=lambda: (
            f"no question: {said(server, conversation_id, 'error')} {server.log()[-3000:]}"
        ),
    )
    assert question["message"] == "Please provide inputs for the following fields:"
    answer = {
        "name": "Ada Lovelace",
        "check": "true",
        "firstLine": "It was a dark and stormy night.",
        "email": "ada@example.com",
        "homepage": "https://ada.example.com/",
        "birthdate": "1815-12-10",
        "integer": "7",
        "number": "2.5",
        "untitledSingleSelectEnum": "Joey",
        "untitledMultipleSelectEnum": ["Piano", "Drums"],
        "titledSingleSelectEnum": "hero-3",
        "titledMultipleSelectEnum": ["fish-2"],
        "legacyTitledEnum": "pet-2",
    }
    status, _ = client.post(
        f"/parts/{part_id}/settle",
        {"action": "accept", **{f"answer.{key}": value for key, value in answer.items()}},
    )
    assert status == 200
    replies = wait_for(
        lambda: [t for t in said(server, conversation_id) if t.startswith("\nRaw result")],
        message=lambda: f"no result: {said(server, conversation_id, 'error')}",
    )
    assert "\u2705 User provided the requested information!" in said(server, conversation_id)
    inputs = next(t for t in said(server, conversation_id) if t.startswith("User inputs:"))
    assert "- Name: Ada Lovelace" in inputs
    assert "- Favorite Integer: 7" in inputs and "- Favorite Number: 2.5" in inputs
    assert "- Birthdate: 1815-12-10" in inputs
    raw = json.loads(replies[0].removeprefix("\nRaw result: "))
    assert raw["action"] == "accept"
    assert raw["content"]["untitledMultipleSelectEnum"] == ["Piano", "Drums"]
    assert raw["content"]["check"] is True and raw["content"]["integer"] == 7

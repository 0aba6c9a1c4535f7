"""The playground as an MCP server, against a real daphne (`manage.py serve`), with clients
nobody here wrote: the official MCP Python SDK's client, and raw JSON-RPC over Streamable HTTP
for task-augmented calls (no SDK client sends them yet). A person answers in the chat, the
inbox or from a mail, as they would. One server for the module; the restart test runs last."""

import ast
import asyncio
import json
import os
import re
import subprocess
import sys
import time
from contextlib import asynccontextmanager

import httpx
import httpx2
import psutil
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import Implementation

from tests.support.api_support import ASK
from tests.support.live_server import BASE_DIR, LiveClient, LiveServer, wait_for
from tests.support.mcp_support import inspector_cli
from tests.support.smtp_support import SmtpServer, text_of

PASSWORDS = {"alice": "alice-password-1", "bob": "bob-password-1", "carol": "carol-password-1"}
STAGING = {"action": "accept", "content": {"env": "staging"}}
LEGACY = "2025-11-25"  # the revision whose tasks the raw calls speak

SEED = """
from django.contrib.auth.models import Group, User
managers = Group.objects.create(name="release-managers")
for name in ("alice", "bob", "carol"):
    User.objects.filter(username=name).update(email=f"{name}@example.com")
for name in ("alice", "bob"):
    User.objects.get(username=name).groups.add(managers)
"""


@pytest.fixture(scope="module")
def smtp():
    smtp = SmtpServer()
    smtp.start()
    yield smtp
    smtp.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory, smtp):
    env = {
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(smtp.port),
        "NOTIFY_AFTER_SECONDS": "1",
        "NOTIFY_BATCH_SECONDS": "1",
        "API_RATE_LIMIT": "10000/m",
    }
    server = LiveServer(tmp_path_factory.mktemp("daphne"), env=env)
    server.prepare(PASSWORDS)
    server.manage("shell", "-c", SEED)
    server.start()
    yield server
    server.stop()


def make_key(server: LiveServer, username: str) -> str:
    script = (
        "from django.contrib.auth.models import User\n"
        "from playground.api.tokens import create_token\n"
        f"print(create_token(User.objects.get(username={username!r}), 'mcp')[1])\n"
    )
    return server.manage("shell", "-v0", "-c", script).strip()


@pytest.fixture(scope="module")
def alice_key(server) -> str:
    return make_key(server, "alice")


@pytest.fixture(scope="module")
def carol_key(server) -> str:
    return make_key(server, "carol")


@asynccontextmanager
async def sdk_client(server: LiveServer, key: str, name: str = "deploy-bot"):
    """The official SDK's client, as the docs configure it."""
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=120)
    transport = streamable_http_client(server.url + "/mcp", http_client=http)
    async with http, Client(transport, client_info=Implementation(name=name, version="1")) as c:
        yield c


class RawMcp:
    """JSON-RPC over Streamable HTTP by hand, at the 2025-11-25 revision (stateless)."""

    def __init__(self, server: LiveServer, key: str):
        self.url = server.url + "/mcp"
        self.headers = {
            "Authorization": f"Bearer {key}",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": LEGACY,
        }
        self.ids = iter(range(1, 1_000_000))

    def call(self, method: str, params: dict | None = None, timeout: float = 30) -> dict:
        body = {"jsonrpc": "2.0", "id": next(self.ids), "method": method, "params": params or {}}
        response = httpx.post(self.url, json=body, headers=self.headers, timeout=timeout)
        assert response.status_code == 200, response.text
        return _json_rpc(response)

    def task(self, tool: str, arguments: dict) -> dict:
        """Call a tool as a task; return the task."""
        params = {"name": tool, "arguments": arguments, "task": {"ttl": 600_000}}
        return self.call("tools/call", params)["result"]["task"]


def _json_rpc(response: httpx.Response) -> dict:
    """The JSON-RPC response, from a JSON body or the last `data:` event of an SSE one."""
    if response.headers["content-type"].startswith("application/json"):
        return response.json()
    events = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
    return [json.loads(event) for event in events if event.strip()][-1]


def pending_parts(server: LiveServer, message: str) -> list[int]:
    rows = server.query(
        "SELECT id FROM elicitation_part WHERE state = 'pending' AND payload LIKE ?",
        (f"%{message}%",),
    )
    return [pk for (pk,) in rows]


def one_pending(server: LiveServer, message: str) -> int:
    found = wait_for(lambda: pending_parts(server, message), message=f"never asked: {message}")
    assert len(found) == 1, found
    return found[0]


def answer(server: LiveServer, person: str, part_id: int, fields: dict) -> int:
    client = LiveClient(server, person, PASSWORDS[person])
    form = {"action": "accept", **{f"answer.{name}": value for name, value in fields.items()}}
    return client.post(f"/parts/{part_id}/settle", form)[0]


def asked(message: str) -> dict:
    return {**ASK, "message": message}


async def test_the_sdk_client_asks_and_gets_the_typed_answer(server, alice_key):
    async with sdk_client(server, alice_key) as client:
        assert client.protocol_version == "2026-07-28"
        assert "io.modelcontextprotocol/tasks" in client.session.server_capabilities.extensions
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(tools) == {"request_input", "request_approval", "list_waiting"}
        required = tools["request_input"].input_schema["required"]
        assert {"message", "requestedSchema"} <= set(required)

        progress: list[str] = []

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress.append(message)

        call = asyncio.create_task(
            client.call_tool(
                "request_input", asked("Deploy to where?"), progress_callback=on_progress
            )
        )
        part_id = await asyncio.to_thread(one_pending, server, "Deploy to where?")
        waiting = await client.call_tool("list_waiting", {})
        assert [item["requestId"] for item in waiting.structured_content["waiting"]] == [part_id]
        assert not call.done()
        await asyncio.to_thread(wait_for, lambda: progress, 30, 0.05, "no progress while held")
        assert progress[0] == "Waiting for a person to answer."
        assert await asyncio.to_thread(answer, server, "alice", part_id, {"env": "staging"}) == 200
        result = await call
    assert not result.is_error
    assert result.structured_content == STAGING
    assert "staging" in result.content[0].text
    # In a conversation of an agent named after the client, shown in the chat as any other.
    ((agent, kind),) = server.query(
        "SELECT a.name, a.kind FROM elicitation_part p JOIN playground_conversation c"
        " ON c.id = p.conversation_id JOIN playground_agent a ON a.id = c.agent_id"
        " WHERE p.id = ?",
        (part_id,),
    )
    assert (agent, kind) == ("deploy-bot", "external")
    person = LiveClient(server, "alice", PASSWORDS["alice"])
    ((conversation_id,),) = server.query(
        "SELECT conversation_id FROM elicitation_part WHERE id = ?", (part_id,)
    )
    assert "Deploy to where?" in person.get(f"/c/{conversation_id}/")[1]


async def test_a_handshake_era_client_gets_the_tools_and_the_tasks_capability(server, alice_key):
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {alice_key}"}, timeout=60)
    transport = streamable_http_client(server.url + "/mcp", http_client=http)
    async with http, Client(transport, mode="legacy", cache=None) as client:
        assert client.protocol_version == LEGACY
        capabilities = client.session.server_capabilities
        assert capabilities.tasks.requests.tools.call is not None
        assert capabilities.tasks.list is not None and capabilities.tasks.cancel is not None
        assert capabilities.tools is not None
        waiting = await client.call_tool("list_waiting", {})
    assert not waiting.is_error


async def test_an_approval_goes_to_the_group_inbox_and_mail_and_four_eyes_hold(
    server, alice_key, smtp
):
    arguments = {
        "action": "Deploy release 4.2 to production",
        "details": {"release": "4.2", "target": "production"},
        "approverGroup": "release-managers",
    }
    async with sdk_client(server, alice_key) as client:
        call = asyncio.create_task(client.call_tool("request_approval", arguments))
        part_id = await asyncio.to_thread(one_pending, server, "Deploy release 4.2")
        bob = await asyncio.to_thread(LiveClient, server, "bob", PASSWORDS["bob"])
        inbox = (await asyncio.to_thread(bob.get, "/inbox/"))[1]
        assert "Deploy release 4.2 to production" in inbox

        def mailed_to_bob():
            return [m for m in smtp.mails if "bob@example.com" in m["X-Envelope-To"]]

        (mail,) = await asyncio.to_thread(wait_for, mailed_to_bob, 30)
        assert f"/q/{part_id}/" in text_of(mail)
        # Four eyes: the person the agent acts for cannot approve it themself.
        refused = await asyncio.to_thread(answer, server, "alice", part_id, {"scope": "once"})
        assert refused == 409
        assert pending_parts(server, "Deploy release 4.2") == [part_id]
        assert not call.done()
        assert await asyncio.to_thread(answer, server, "bob", part_id, {"scope": "once"}) == 200
        result = await call
    assert result.structured_content == {"action": "accept", "content": {"scope": "once"}}


async def test_bad_input_is_a_tool_error_and_nothing_is_asked(server, alice_key):
    secret = {
        "message": "Your password?",
        "requestedSchema": {"type": "object", "properties": {"password": {"type": "string"}}},
    }
    async with sdk_client(server, alice_key) as client:
        degraded = await client.call_tool("request_input", secret)
        unknown = await client.call_tool(
            "request_input", {**asked("Routed nowhere?"), "assignees": ["group:nobody-here"]}
        )
    assert degraded.is_error
    ((part_id, reason, conversation_id),) = server.query(
        "SELECT id, degraded_reason, conversation_id FROM elicitation_part"
        " WHERE payload LIKE '%Your password?%'"
    )
    assert degraded.content[0].text == f"elicitation: unsupported payload — {reason}"
    # Shown in the chat as a question that could not be shown, as for other sources.
    person = LiveClient(server, "alice", PASSWORDS["alice"])
    page = (await asyncio.to_thread(person.get, f"/c/{conversation_id}/"))[1]
    assert f'id="part-{part_id}"' in page and 'data-state="degraded"' in page
    assert unknown.is_error and "group:nobody-here" in unknown.content[0].text
    assert pending_parts(server, "Routed nowhere?") == []


def test_a_task_is_created_polled_listed_answered_and_another_cancelled(server, alice_key):
    raw = RawMcp(server, alice_key)
    task = raw.task("request_input", asked("Task: deploy where?"))
    assert task["status"] == "working"
    got = raw.call("tasks/get", {"taskId": task["taskId"]})["result"]
    assert got["taskId"] == task["taskId"] and got["status"] == "working"
    listed = raw.call("tasks/list")["result"]["tasks"]
    assert task["taskId"] in [t["taskId"] for t in listed]

    part_id = one_pending(server, "Task: deploy where?")
    assert answer(server, "alice", part_id, {"env": "staging"}) == 200
    assert raw.call("tasks/get", {"taskId": task["taskId"]})["result"]["status"] == "completed"
    result = raw.call("tasks/result", {"taskId": task["taskId"]})["result"]
    assert result["structuredContent"] == STAGING

    other = raw.task("request_input", asked("Task: cancel me"))
    cancelled = raw.call("tasks/cancel", {"taskId": other["taskId"]})["result"]
    assert cancelled["status"] == "cancelled"
    rows = server.query("SELECT state FROM elicitation_part WHERE payload LIKE '%cancel me%'")
    assert rows == [("cancelled",)]


def test_the_same_idempotency_key_asks_once(server, alice_key):
    raw = RawMcp(server, alice_key)
    arguments = {**asked("Asked once?"), "idempotencyKey": "deploy-42"}
    first, again = raw.task("request_input", arguments), raw.task("request_input", arguments)
    assert first["taskId"] == again["taskId"]
    part_id = one_pending(server, "Asked once?")
    assert answer(server, "alice", part_id, {"env": "staging"}) == 200
    # A plain call with the key later gets the answer at once, and nothing is asked again.
    held = raw.call("tools/call", {"name": "request_input", "arguments": arguments})["result"]
    assert held["structuredContent"] == STAGING
    rows = server.query("SELECT COUNT(*) FROM elicitation_part WHERE payload LIKE '%Asked once?%'")
    assert rows == [(1,)]


def test_the_same_question_still_waiting_in_a_conversation_is_not_asked_again(server, alice_key):
    raw = RawMcp(server, alice_key)
    arguments = {**asked("Asked again without a key?"), "conversation": "Release 4.2"}
    first, again = raw.task("request_input", arguments), raw.task("request_input", arguments)
    assert first["taskId"] == again["taskId"]
    assert len(pending_parts(server, "Asked again without a key?")) == 1


def test_another_persons_token_sees_and_answers_nothing(server, alice_key, carol_key):
    alice, carol = RawMcp(server, alice_key), RawMcp(server, carol_key)
    task = alice.task("request_input", asked("Alice's own question"))
    part_id = one_pending(server, "Alice's own question")
    ((conversation_id,),) = server.query(
        "SELECT conversation_id FROM elicitation_part WHERE id = ?", (part_id,)
    )
    for method in ("tasks/get", "tasks/result", "tasks/cancel"):
        error = carol.call(method, {"taskId": task["taskId"]})["error"]
        assert "no task" in error["message"].lower()
    assert task["taskId"] not in json.dumps(carol.call("tasks/list"))
    waiting = carol.call("tools/call", {"name": "list_waiting", "arguments": {}})["result"]
    assert waiting["structuredContent"] == {"waiting": []}
    into = {**asked("Into alice's chat"), "conversation": conversation_id}
    refused = carol.call("tools/call", {"name": "request_input", "arguments": into})["result"]
    assert refused["isError"] and f"no conversation {conversation_id}" in json.dumps(refused)
    assert answer(server, "carol", part_id, {"env": "production"}) == 404
    assert pending_parts(server, "Alice's own question") == [part_id]


def test_the_mount_refuses_as_the_api_does(server, alice_key):
    url = server.url + "/mcp"
    headers = {"Accept": "application/json, text/event-stream"}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    unauthenticated = httpx.post(url, json=body, headers=headers)
    assert unauthenticated.status_code == 401
    assert unauthenticated.headers["WWW-Authenticate"].startswith("Bearer")
    authorized = {**headers, "Authorization": f"Bearer {alice_key}"}
    huge = {**body, "params": {"padding": "x" * 300_000}}
    assert httpx.post(url, json=huge, headers=authorized).status_code == 413
    other_host = {**authorized, "Host": "evil.example"}
    assert httpx.post(url, json=body, headers=other_host).status_code == 421


def test_a_revoked_token_gets_401_at_its_next_request(server):
    key = make_key(server, "alice")
    raw = RawMcp(server, key)
    assert "result" in raw.call("tools/list")
    server.manage(
        "shell",
        "-c",
        "from playground.api.models import ApiToken\nfrom playground.api.tokens import revoke\n"
        f"revoke(ApiToken.objects.get(prefix={key[:12]!r}))\n",
    )
    body = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}
    assert httpx.post(raw.url, json=body, headers=raw.headers).status_code == 401


def answered_while_it_runs(server: LiveServer, command: list[str], env: dict, message: str):
    """Run a client that asks `message`, answer it as alice once asked; return its output."""
    run = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        part_id = one_pending(server, message)
        assert answer(server, "alice", part_id, {"env": "staging"}) == 200
        out, err = run.communicate(timeout=60)
    finally:
        run.kill()
    assert run.returncode == 0, err
    return out


def docs_python_example() -> str:
    """The Python client example of docs/mcp-server.md, as written."""
    page = (BASE_DIR / "docs" / "mcp-server.md").read_text()
    (code,) = re.findall(r"^```python\n(.*?)^```$", page, re.S | re.M)
    return code


def test_the_docs_python_example_prints_the_answer(server, alice_key, tmp_path):
    code = docs_python_example()
    assert len([line for line in code.splitlines() if line.strip()]) <= 10
    script = tmp_path / "ask.py"
    script.write_text(code)
    env = {"PATH": os.environ["PATH"], "PLAYGROUND_URL": server.url, "PLAYGROUND_TOKEN": alice_key}
    out = answered_while_it_runs(server, [sys.executable, str(script)], env, "Where to?")
    assert ast.literal_eval(out.decode().strip()) == STAGING


def test_the_mcp_inspector_cli_lists_the_tools_and_asks(server, alice_key, tmp_path):
    inspector = [
        *inspector_cli(),
        server.url + "/mcp",
        "--transport",
        "http",
        "--header",
        f"Authorization: Bearer {alice_key}",
    ]
    env = {**os.environ, "HOME": str(tmp_path)}  # its catalog file goes there
    listed = subprocess.run(
        [*inspector, "--method", "tools/list"], env=env, capture_output=True, timeout=120
    )
    assert listed.returncode == 0, listed.stderr
    names = [tool["name"] for tool in json.loads(listed.stdout)["tools"]]
    assert names == ["request_input", "request_approval", "list_waiting"]
    call = [
        "--method",
        "tools/call",
        "--tool-name",
        "request_input",
        "--tool-arg",
        "message=Asked from the Inspector?",
        f"requestedSchema={json.dumps(ASK['requestedSchema'])}",
    ]
    out = answered_while_it_runs(server, [*inspector, *call], env, "Asked from the Inspector?")
    assert json.loads(out)["structuredContent"] == STAGING


def _connections(server: LiveServer) -> int:
    daphne = psutil.Process(server.process.pid)
    return sum(1 for c in daphne.net_connections("tcp") if c.status == psutil.CONN_ESTABLISHED)


async def test_a_hundred_held_calls_do_not_hold_up_another_request(server, alice_key, carol_key):
    """Another token's call and a page load finish while a hundred calls are held (asserted
    while every held call still waits, not against a budget); the time of the other call is
    printed beside them."""
    raw = RawMcp(server, alice_key)
    arguments = {**asked("A hundred wait for this"), "idempotencyKey": "hundred"}
    await asyncio.to_thread(raw.task, "request_input", arguments)
    part_id = await asyncio.to_thread(one_pending, server, "A hundred wait for this")
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
    body["params"] = {"name": "request_input", "arguments": arguments}
    limits = httpx.Limits(max_connections=100)
    async with httpx.AsyncClient(headers=raw.headers, limits=limits, timeout=120) as held:
        before = await asyncio.to_thread(_connections, server)
        calls = [asyncio.create_task(held.post(raw.url, json=body)) for _ in range(100)]
        await asyncio.to_thread(
            wait_for, lambda: _connections(server) >= before + 100, 60, 0.05, "not all held"
        )
        started = time.monotonic()
        other = await asyncio.to_thread(
            RawMcp(server, carol_key).call, "tools/call", {"name": "list_waiting"}, 50
        )
        print(f"another call beside 100 held ones: {time.monotonic() - started:.3f} s")
        assert other["result"]["structuredContent"] == {"waiting": []}
        person = await asyncio.to_thread(LiveClient, server, "bob", PASSWORDS["bob"])
        assert (await asyncio.to_thread(person.get, "/inbox/"))[0] == 200
        assert not any(call.done() for call in calls), "a held call ended before its answer"
        assert await asyncio.to_thread(answer, server, "alice", part_id, {"env": "staging"}) == 200
        responses = await asyncio.gather(*calls)
    results = [_json_rpc(response)["result"]["structuredContent"] for response in responses]
    assert results == [STAGING] * 100


def test_a_task_survives_a_sigkill_and_the_next_poll_gets_the_answer(server, alice_key):
    raw = RawMcp(server, alice_key)
    task = raw.task("request_input", asked("Still there after a crash?"))
    part_id = one_pending(server, "Still there after a crash?")
    server.kill()
    server.start()
    assert raw.call("tasks/get", {"taskId": task["taskId"]})["result"]["status"] == "working"
    assert answer(server, "alice", part_id, {"env": "staging"}) == 200
    assert raw.call("tasks/get", {"taskId": task["taskId"]})["result"]["status"] == "completed"
    result = raw.call("tasks/result", {"taskId": task["taskId"]})["result"]
    assert result["structuredContent"] == STAGING

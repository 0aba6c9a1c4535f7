"""The HTTP API examples of docs/http-api.md run as written against a real daphne
(`manage.py serve`).

Each example is taken from the page at test time, run as a subprocess with the server's URL
and a fresh token, answered in the chat like a person would, and must print the answer.
"""

import ast
import json
import os
import re
import runpy
import shutil
import subprocess
import sys
import uuid
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.support.live_server import BASE_DIR, LiveClient, LiveServer, wait_for

PASSWORD = "alice-password-1"
SECTION = "# Ask from any agent (HTTP API)"
# What the person picks in the chat, by the field each question asks for.
ANSWERS = {"env": "staging", "region": "eu-west"}
STAGING = {"action": "accept", "content": {"env": "staging"}}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("daphne"))
    server.prepare({"alice": PASSWORD})
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def keys(server) -> list[str]:
    """Tokens of alice's, one for each test that runs an example (one manage.py call: fast)."""
    script = (
        "from django.contrib.auth.models import User\n"
        "from playground.api.tokens import create_token\n"
        "alice = User.objects.get(username='alice')\n"
        "for n in range(8):\n"
        "    print(create_token(alice, f'readme example {n}')[1])\n"
    )
    return server.manage("shell", "-v0", "-c", script).split()


@pytest.fixture
def key(keys) -> str:
    return keys.pop()


def readme_examples() -> list[tuple[str, str]]:
    """Return the (language, code) of every fenced example of docs/http-api.md."""
    readme = (BASE_DIR / "docs" / "http-api.md").read_text()
    start = readme.index(SECTION)
    return re.findall(r"^```(\w*)\n(.*?)^```$", readme[start:], re.S | re.M)


def example(tmp_path: Path, name: str, language: str, *, langgraph: bool = False) -> Path:
    """Write the section's one `language` example (using LangGraph or not) to a file."""
    found = [
        code
        for lang, code in readme_examples()
        if lang == language and ("langgraph" in code) == langgraph
    ]
    assert len(found) == 1, f"expected one {language} example (langgraph: {langgraph})"
    path = tmp_path / name
    path.write_text(found[0])
    return path


@contextmanager
def running(server: LiveServer, key: str, *command: str):
    # PATH for curl, node and python3; nothing else of the test's environment (no proxies).
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])
    env = {"PATH": path, "PLAYGROUND_URL": server.url, "PLAYGROUND_TOKEN": key}
    script = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        yield script
    finally:
        script.kill()
        script.wait()


def answer_in_the_chat(
    server: LiveServer, script: subprocess.Popen, questions: int = 1
) -> tuple[str, list[int]]:
    """Answer the questions the script asks in the conversation it prints, like a person;
    return the last line the script prints and the answered part ids."""
    first = script.stdout.readline()
    assert first.startswith("Answer at "), first + script.stderr.read()
    conversation_id = int(first.split("Answer at ")[1].strip().rstrip("/").rsplit("/", 1)[1])
    pending = wait_for(lambda: _pending(server, conversation_id, questions))
    person = LiveClient(server, "alice", PASSWORD)
    for part_id, field in pending:
        answer = {"action": "accept", f"answer.{field}": ANSWERS[field]}
        assert person.post(f"/parts/{part_id}/settle", answer)[0] == 200
    out, err = script.communicate(timeout=30)
    assert script.returncode == 0, err
    return out.strip().splitlines()[-1], [part_id for part_id, _ in pending]


def _pending(server: LiveServer, conversation_id: int, count: int) -> list[tuple[int, str]]:
    rows = server.query(
        "SELECT id, payload FROM elicitation_part WHERE conversation_id = ? AND state = 'pending'",
        (conversation_id,),
    )
    if len(rows) < count:
        return []
    assert len(rows) == count, "asked more questions than it should"
    return [(pk, *json.loads(payload)["requestedSchema"]["properties"]) for pk, payload in rows]


def assert_asked_with_their_own_uuid_keys(server: LiveServer, part_ids: list[int]) -> None:
    marks = ",".join("?" * len(part_ids))
    sql = f"SELECT key FROM api_idempotencykey WHERE part_id IN ({marks})"
    keys = [key for (key,) in server.query(sql, tuple(part_ids))]
    assert len(set(keys)) == len(part_ids)
    for key in keys:
        uuid.UUID(key)  # a generated key, not a fixed string


def test_every_example_in_the_section_is_run_here():
    languages = sorted(language for language, _ in readme_examples())
    assert languages == ["js", "python", "python", "sh"]


def test_the_curl_example_prints_the_answered_request(server, key, tmp_path):
    ask = example(tmp_path, "ask.sh", "sh")
    with running(server, key, "sh", str(ask)) as script:
        printed, part_ids = answer_in_the_chat(server, script)
    request = json.loads(printed)
    assert request["state"] == "submitted"
    assert request["envelope"] == STAGING
    assert_asked_with_their_own_uuid_keys(server, part_ids)


def test_the_python_example_prints_the_envelope(server, key, tmp_path):
    ask = example(tmp_path, "ask.py", "python")
    with running(server, key, sys.executable, str(ask)) as script:
        printed, part_ids = answer_in_the_chat(server, script)
    assert ast.literal_eval(printed) == STAGING
    assert_asked_with_their_own_uuid_keys(server, part_ids)


def _node() -> str:
    node = shutil.which("node")
    assert node, "the JavaScript example needs Node 20 or later on PATH"
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout
    assert int(version.lstrip("v").split(".")[0]) >= 20, f"Node 20 or later, not {version}"
    return node


def test_the_javascript_example_prints_the_envelope(server, key, tmp_path):
    ask = example(tmp_path, "ask.mjs", "js")
    with running(server, key, _node(), str(ask)) as script:
        printed, part_ids = answer_in_the_chat(server, script)
    assert json.loads(printed) == STAGING
    assert_asked_with_their_own_uuid_keys(server, part_ids)


def test_the_javascript_example_fails_with_the_problem_detail(server, tmp_path):
    ask = example(tmp_path, "ask.mjs", "js")
    refused = httpx.post(server.url + "/api/v1/conversations", json={"agentName": "Deploy bot"})
    assert refused.status_code == 401
    with running(server, "not-a-token", _node(), str(ask)) as script:
        out, err = script.communicate(timeout=30)
    assert script.returncode != 0
    assert out == ""
    assert f"Error: 401: {refused.json()['detail']}" in err


def test_the_langgraph_example_asks_both_parallel_questions_and_resumes(server, key, tmp_path):
    graph = example(tmp_path, "deploy_graph.py", "python", langgraph=True)
    with running(server, key, sys.executable, str(graph)) as script:
        printed, part_ids = answer_in_the_chat(server, script, questions=2)
    assert ast.literal_eval(printed) == {"env": "staging", "region": "eu-west"}
    assert_asked_with_their_own_uuid_keys(server, part_ids)


def test_the_langgraph_driver_posting_an_interrupt_again_asks_nothing_twice(
    server, key, tmp_path, monkeypatch
):
    monkeypatch.setenv("PLAYGROUND_URL", server.url)
    monkeypatch.setenv("PLAYGROUND_TOKEN", key)
    adapter = runpy.run_path(
        str(example(tmp_path, "deploy_graph.py", "python", langgraph=True)),
        run_name="deploy_graph",  # its functions and graph, without running it
    )
    graph, post_question = adapter["graph"], adapter["post_question"]
    conversation = adapter["api"].post("/conversations", json={"agentName": "Deploy graph"}).json()
    thread_id = str(uuid.uuid4())
    config = {"configurable": {"thread_id": thread_id}}

    interrupts = graph.invoke({}, config)["__interrupt__"]
    asked = {i.id: post_question(conversation["id"], thread_id, i)["id"] for i in interrupts}
    # A driver restarted from the checkpoint meets the same interrupts and posts them again.
    again = graph.invoke(None, config)["__interrupt__"]
    asked_again = {i.id: post_question(conversation["id"], thread_id, i)["id"] for i in again}
    adapter["api"].close()

    assert len(asked) == 2
    # Matched by interrupt: the two nodes run in parallel threads, so which one pauses first
    # (and comes first in `__interrupt__`) differs from run to run under load.
    assert asked_again == asked
    assert len(_pending(server, conversation["id"], 2)) == 2

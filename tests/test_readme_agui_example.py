"""The AG-UI example of docs/agui.md runs as written: a Pydantic AI agent served by its own AG-UI
adapter (uvicorn, a real process), its model an OpenAI-compatible test server, asks through
our `request_input` frontend tool and continues with the answer. Its Mastra example is the
server `test_agui_mastra` runs."""

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from elicitation.frontend_tools import REQUEST_INPUT_DESCRIPTION
from tests.support.agui_support import agents_file, chat_with
from tests.support.fake_openai import FakeOpenAI, text, tool_calls
from tests.support.live_server import free_port, wait_for
from tests.support.mastra_support import EXAMPLE
from tests.support.runtime_helpers import answer, pending, said, send

PAGE = Path(__file__).resolve().parent.parent / "docs" / "agui.md"
CITY = {
    "type": "object",
    "properties": {"city": {"type": "string", "title": "City"}},
    "required": ["city"],
}


def example() -> str:
    section = PAGE.read_text()
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_example_is_ten_lines():
    assert len([line for line in example().splitlines() if line.strip()]) <= 11


@pytest.fixture
def served(tmp_path):
    """The page's example, as written, served with uvicorn; return its URL and model."""
    model = FakeOpenAI(
        tool_calls(("request_input", {"message": "Where to?", "requestedSchema": CITY})),
        text("Booked Lisbon."),
    )
    (tmp_path / "travel_agent.py").write_text(example())
    port = free_port()
    env = {**os.environ, "OPENAI_BASE_URL": model.base_url, "OPENAI_API_KEY": "test-key"}
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "travel_agent:app", "--port", str(port)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    def listening() -> bool:
        with socket.socket() as sock:
            return sock.connect_ex(("127.0.0.1", port)) == 0

    wait_for(listening, message="the docs' AG-UI agent did not start")
    yield f"http://127.0.0.1:{port}/", model
    process.kill()
    process.wait()
    model.close()


@pytest.mark.django_db(transaction=True)
def test_the_readme_agent_asks_and_continues_with_the_answer(
    served, settings, tmp_path, client, alice
):
    url, model = served
    conversation = chat_with(settings, client, alice, agents_file(tmp_path, url))
    send(client, conversation, "a weekend away")
    part = pending(conversation)
    assert part.message == "Where to?"
    answer(client, part, city="Lisbon")
    assert said(conversation) == ["Booked Lisbon."]
    offered = {tool["function"]["name"]: tool for tool in model.requests[0]["tools"]}
    assert offered["request_input"]["function"]["description"] == REQUEST_INPUT_DESCRIPTION
    answered = [m for m in model.requests[1]["messages"] if m["role"] == "tool"]
    assert json.loads(answered[0]["content"]) == {"action": "accept", "content": {"city": "Lisbon"}}


def test_the_mastra_example_shown_is_the_one_the_tests_run():
    section = PAGE.read_text().split("## Mastra\n", 1)[1].split("\n## ", 1)[0]
    shown = re.search(r"```js\n(.*?)```", section, re.S).group(1)
    assert shown in (EXAMPLE / "server.mjs").read_text()
    pinned = json.loads((EXAMPLE / "package.json").read_text())["dependencies"]
    for name, version in pinned.items():
        assert f"`{name}`" in section and version in section, name

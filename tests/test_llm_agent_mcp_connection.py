"""An LLM agent's MCP server with `connection = "demo"`: the person is asked for the connection
before the model runs, the server gets their credential, and the model sees only what the tool
returned (a digest), never the credential."""

import sys
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelMessagesTypeAdapter

from tests.support.connections_support import digest, everything_stored, new_key, services_file
from tests.support.llm_support import REQUESTS, call, logged_in, scripted, tool_results  # noqa: F401
from tests.support.runtime_helpers import agent_row, pending, said, send, start

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("logged_in")]

ENV_SERVER = Path(__file__).parent / "support" / "mcp_env_server.py"
TOKEN = "tok-llm-agent-4d2e90"


def result_text(messages) -> str:
    return tool_results(messages)[-1]  # a text result reaches the model as text


@pytest.fixture
def conversation(settings, tmp_path, alice):
    settings.CONNECTIONS_KEYS = [new_key()]
    settings.CONNECTION_SERVICES_FILE = str(services_file(tmp_path))
    path = tmp_path / "mcp_servers.toml"
    path.write_text(
        '[servers.env]\ntitle = "Env server"\ntransport = "stdio"\n'
        f"command = {sys.executable!r}\nargs = [{str(ENV_SERVER)!r}]\n"
        'connection = "demo"\n'
    )
    settings.MCP_SERVERS_FILE = str(path)
    agent = agent_row("test-llm")
    agent.config = {"mcp_servers": ["env"]}
    agent.save()
    return start(alice, "test-llm")


def test_the_person_connects_first_and_the_model_never_sees_the_credential(client, conversation):
    scripted([call("token")], lambda messages: f"Got {result_text(messages)}")
    send(client, conversation, "which token?")
    card = pending(conversation)
    assert card.render_kind == "connection"
    assert REQUESTS == []  # asked before the model runs
    data = {"field.token": TOKEN, "label": "Mine", "connect": "1"}
    assert client.post(f"/parts/{card.pk}/connect", data).status_code == 200
    assert said(conversation) == [f"Got MCP_TEST_TOKEN: sha256 {digest(TOKEN)}"]
    assert TOKEN not in ModelMessagesTypeAdapter.dump_json(REQUESTS[-1]).decode()
    assert TOKEN not in everything_stored()

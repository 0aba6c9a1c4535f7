"""With the default protocol, a tool that asks on a session its server cannot keep (a stateless
HTTP server) fails once on each protocol and the chat says what to set; nothing else falls back."""

import pytest

from playground.mcp_bridge.connection import protocol_for
from playground.mcp_bridge.servers import load
from playground.runs.models import Message
from tests.support.mcp_support import (
    HttpTestServer,
    chat_with,
    http_servers_file,
    stdio_servers_file,
)
from tests.support.runtime_helpers import send

pytestmark = pytest.mark.django_db(transaction=True)


def errors(conversation) -> list[str]:
    messages = Message.objects.filter(turn__conversation=conversation, role=Message.Role.ERROR)
    return list(messages.values_list("text", flat=True))


@pytest.fixture
def starts(tmp_path, monkeypatch):
    log = tmp_path / "calls.log"
    monkeypatch.setenv("MCP_TEST_LOG", str(log))
    return lambda: log.read_text().count("legacy asking") if log.exists() else 0


def test_a_tool_that_cannot_ask_on_either_protocol_says_what_to_set(
    request, settings, tmp_path, client, alice, starts
):
    server = HttpTestServer(mode="stateless-http")
    request.addfinalizer(server.stop)
    conversation = chat_with(settings, client, alice, http_servers_file(tmp_path, server.url))
    send(client, conversation, "legacy_profile")
    assert errors(conversation) == [
        "Calling legacy_profile failed: Test server asked a question (elicitation/create) on a "
        'connection that cannot carry it. Set protocol = "legacy" under [servers.test] in the '
        "servers file; if it is set already, the server keeps no session to ask on (a stateless "
        "HTTP server cannot ask questions this way)."
    ]
    assert starts() == 2  # on 2026-07-28, then once on a legacy session
    assert protocol_for(load()["test"]) == "legacy"  # remembered for this server


def test_any_other_error_is_not_called_again(settings, tmp_path, client, alice):
    conversation = chat_with(settings, client, alice, stdio_servers_file(tmp_path))
    send(client, conversation, "fails")
    send(client, conversation, "huge")
    assert len(errors(conversation)) == 2
    assert protocol_for(load()["test"]) == "auto"

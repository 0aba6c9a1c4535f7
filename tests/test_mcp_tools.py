"""Calling a real MCP server's tools from the chat (the SDK-built test server over stdio)."""

import pytest

from mcp_bridge.catalog import sync_agents
from playground.models import Conversation, Message, Turn
from tests.mcp_support import stdio_servers_file
from tests.runtime_helpers import said, send

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def conversation(settings, tmp_path, client, alice):
    settings.MCP_SERVERS_FILE = str(stdio_servers_file(tmp_path))
    [agent] = sync_agents()
    client.force_login(alice)
    return Conversation.objects.create(owner=alice, agent=agent)


def errors(conversation) -> list[str]:
    return list(
        Message.objects.filter(
            turn__conversation=conversation, role=Message.Role.ERROR
        ).values_list("text", flat=True)
    )


def test_typing_a_tool_name_and_json_calls_it(client, conversation):
    send(client, conversation, 'echo {"text": "hello there"}')
    assert said(conversation) == ["hello there"]
    assert Turn.objects.get().status == Turn.Status.DONE

"""Every connection to a server declares what the playground supports (form and URL
elicitation; no sampling, no roots), and a tool name the server does not have is told so."""

import json

import pytest

from playground.runs.models import Message
from tests.support.mcp_support import (
    HttpTestServer,
    chat_with,
    http_servers_file,
    stdio_servers_file,
)
from tests.support.runtime_helpers import said, send

pytestmark = pytest.mark.django_db(transaction=True)

DECLARED = {"elicitation": {"form": {}, "url": {}}}


def errors(conversation) -> list[str]:
    messages = Message.objects.filter(turn__conversation=conversation, role=Message.Role.ERROR)
    return list(messages.values_list("text", flat=True))


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
def test_a_call_declares_form_and_url_elicitation_and_nothing_else(
    settings, tmp_path, client, alice, protocol
):
    conversation = chat_with(
        settings, client, alice, stdio_servers_file(tmp_path, protocol=protocol)
    )
    send(client, conversation, "capabilities")
    assert [json.loads(text) for text in said(conversation)] == [DECLARED]


def test_a_call_over_http_declares_the_same(request, settings, tmp_path, client, alice):
    server = HttpTestServer()
    request.addfinalizer(server.stop)
    conversation = chat_with(settings, client, alice, http_servers_file(tmp_path, server.url))
    send(client, conversation, "capabilities")
    assert [json.loads(text) for text in said(conversation)] == [DECLARED]


@pytest.fixture
def conversation(settings, tmp_path, client, alice):
    return chat_with(settings, client, alice, stdio_servers_file(tmp_path))


def test_an_unknown_tool_name_says_so_and_names_the_closest(client, conversation):
    send(client, conversation, 'ecko {"text": "hello"}')
    assert errors(conversation) == ["Test server has no tool named ecko. Closest: echo."]
    assert not conversation.parts.exists()  # no tools card and no question again


def test_an_unknown_tool_name_with_nothing_close_says_how_to_see_the_tools(client, conversation):
    send(client, conversation, "trigger-elicitation-request")
    assert errors(conversation) == [
        "Test server has no tool named trigger-elicitation-request. "
        "Say anything else to see its tools."
    ]


def test_a_message_that_names_no_tool_still_shows_the_tools(client, conversation):
    send(client, conversation, "hello")
    assert errors(conversation) == []
    assert conversation.parts.filter(render_kind="display").count() == 1

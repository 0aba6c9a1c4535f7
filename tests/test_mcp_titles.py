"""A server's forms carry no names its SDK generated ("weatherArguments", "Profile"): the message
says what is asked; a title written for people stays. (A question a legacy session pushes:
tests/test_mcp_live.py.)"""

import pytest

from playground.mcp_bridge.tool_forms import drop_generated_title
from tests.support.mcp_support import chat_with, stdio_servers_file
from tests.support.runtime_helpers import answer, pending, send

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def conversation(settings, tmp_path, client, alice):
    return chat_with(settings, client, alice, stdio_servers_file(tmp_path))


def test_an_argument_form_has_no_generated_title(client, conversation):
    send(client, conversation, "hi")
    answer(client, pending(conversation), tool="weather")
    form = pending(conversation)
    assert form.message == "Arguments for weather"
    assert form.normalized.get("title") is None  # the SDK's inputSchema says "weatherArguments"
    page = client.get(conversation.get_absolute_url()).content.decode()
    assert "weatherArguments" not in page


def test_a_title_written_for_people_stays():
    schema = {"type": "object", "title": "Shipping address", "properties": {}}
    assert drop_generated_title(schema) == schema
    assert drop_generated_title({"type": "object", "title": "Options"}) == {"type": "object"}

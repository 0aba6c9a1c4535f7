"""Calling a real MCP server's tools from the chat (the SDK-built test server over stdio):
the tools card, argument forms, direct calls, and every kind of result."""

import pytest

from elicitation.models import Part
from playground.runs.models import Agent, Conversation, Message, Turn
from tests.support.mcp_support import broken_servers_file, chat_with, stdio_servers_file
from tests.support.runtime_helpers import answer, pending, said, send

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def conversation(settings, tmp_path, client, alice):
    return chat_with(settings, client, alice, stdio_servers_file(tmp_path))


def errors(conversation) -> list[str]:
    messages = Message.objects.filter(turn__conversation=conversation, role=Message.Role.ERROR)
    return list(messages.values_list("text", flat=True))


def cards(conversation) -> list[dict]:
    parts = Part.objects.filter(conversation=conversation, render_kind="display")
    return list(parts.order_by("call_index").values_list("normalized", flat=True))


def test_typing_a_tool_name_and_json_calls_it(client, conversation):
    send(client, conversation, 'echo {"text": "hello there"}')
    assert said(conversation) == ["hello there"]
    assert cards(conversation) == []  # the SDK's {"result": text} repeats the text
    assert Turn.objects.get().status == Turn.Status.DONE


def test_a_new_conversation_opens_with_the_tools_card_before_the_person_writes(
    client, conversation
):
    response = client.post("/agents/mcp-test/new")
    opened = Conversation.objects.get(pk=response.url.split("/")[2])
    [turn] = opened.turns.all()
    assert turn.text == "" and turn.status == Turn.Status.WAITING  # waiting for a tool pick
    assert [card["title"] for card in cards(opened)] == ["Tools of Test server"]
    assert pending(opened).message == "Which tool of Test server should I call?"
    for _ in range(2):  # on first load and after a reload, from the database
        page = client.get(response.url).content.decode()
        assert "Tools of Test server" in page and "Which tool of Test server" in page
        assert "You said:" not in page
    answer(client, pending(opened), tool="echo")
    answer(client, pending(opened), text="first words")
    assert said(opened) == ["first words"]


@pytest.mark.django_db
def test_a_built_in_agent_still_waits_for_the_person_to_write(client, alice):
    Agent.objects.create(slug="tester", name="Tester", kind="schema-tester", builtin=True)
    client.force_login(alice)
    response = client.post("/agents/tester/new")
    opened = Conversation.objects.get(pk=response.url.split("/")[2])
    assert not opened.turns.exists()
    page = client.get(response.url).content.decode()
    assert "<strong>Try Tester</strong> with one of these, or write your own message" in page


def test_the_tools_card_comes_first_and_a_picked_tool_asks_for_its_arguments(client, conversation):
    send(client, conversation, "hi")
    [tools] = cards(conversation)
    assert tools["title"] == "Tools of Test server"
    assert tools["table"]["columns"] == ["Tool", "Description"]  # no tool has a title
    assert ["echo", "Say the text back."] in tools["table"]["rows"]
    answer(client, pending(conversation), tool="weather")
    form = pending(conversation)
    assert form.message == "Arguments for weather"
    assert [field["name"] for field in form.normalized["fields"]] == ["city", "days", "units"]
    answer(client, form, city="Oslo", days="3", units="imperial")
    assert '"days": 3' in said(conversation)[0]
    assert '"units": "imperial"' in said(conversation)[0]


def test_nested_arguments_are_typed_as_json_and_checked_against_the_schema(client, conversation):
    send(client, conversation, "hi")
    answer(client, pending(conversation), tool="configure")
    assert pending(conversation).message == "Arguments for configure, as JSON"
    answer(client, pending(conversation), arguments='{"settings": {"a": "x"}, "tags": []}')
    again = pending(conversation)
    assert "settings/a: 'x' is not of type 'integer'" in again.message
    assert again.value == {"arguments": '{"settings": {"a": "x"}, "tags": []}'}
    answer(client, again, arguments='{"settings": {"a": 1}, "tags": ["x"]}')
    assert said(conversation) == ["Configured 1 settings and 1 tags."]


def test_a_direct_call_with_arguments_the_schema_refuses_says_why(client, conversation):
    send(client, conversation, 'echo {"text": 5}')
    assert errors(conversation) == ["Arguments for echo refused: text: 5 is not of type 'string'"]


def test_results_show_text_images_and_only_safe_links(client, conversation):
    send(client, conversation, "rich")
    text, link, hostile = said(conversation)
    assert text == "**Bold** and <script>alert(1)</script>"  # markdown; the chat escapes HTML
    assert link == "[report](<https://example.com/report>)"
    assert hostile == "(A link to evil was not shown: only http and https links are.)"
    [image] = cards(conversation)
    assert image["image"]["src"].startswith("data:image/png;base64,iVBOR")
    page = client.get(conversation.get_absolute_url()).content.decode()
    assert "<script>alert(1)" not in page
    # The hostile URI is in the raw result beside the step, as text, never as a link.
    assert "javascript:" not in page.replace("&quot;uri&quot;: &quot;javascript:alert(1)", "")


def test_structured_content_is_a_card(client, conversation):
    send(client, conversation, 'forecast {"city": "Oslo"}')
    [card] = cards(conversation)
    assert card["title"] == "Result of forecast"
    assert card["fields"] == [
        {"label": "city", "value": "Oslo"},
        {"label": "temperatures", "value": "[18, 21]"},
    ]


def test_an_error_result_is_a_clear_error(client, conversation):
    send(client, conversation, "fails")
    assert errors(conversation) == ["fails reported an error: The disk is full."]


def test_a_result_over_the_size_limit_is_refused(client, conversation):
    send(client, conversation, "huge")
    [error] = errors(conversation)
    assert "this server's limit is 1,000,000 bytes" in error
    assert Turn.objects.get().status == Turn.Status.DONE


def test_a_destructive_tool_asks_for_approval_first(client, conversation):
    send(client, conversation, 'delete_everything {"confirm_name": "prod"}')
    approval = pending(conversation)
    assert approval.render_kind == "approval"
    answer(client, approval, "decline")
    assert said(conversation) == ["delete_everything was not called."]


def test_a_server_that_never_answers_is_given_up_on(client, conversation, settings, tmp_path):
    path = stdio_servers_file(tmp_path, extra="timeout_seconds = 2\n")
    settings.MCP_SERVERS_FILE = str(path)
    send(client, conversation, "forever")
    assert errors(conversation) == [
        "Calling forever failed: Test server did not answer within 2 seconds."
    ]
    assert Turn.objects.get().status == Turn.Status.DONE


def test_a_server_speaking_garbage_gets_a_clear_error(client, conversation, settings, tmp_path):
    settings.MCP_SERVERS_FILE = str(broken_servers_file(tmp_path))
    send(client, conversation, "echo")
    [error] = errors(conversation)
    assert error.startswith("Test server did not answer within 3 seconds")
    assert Turn.objects.get().status == Turn.Status.DONE


def test_a_server_on_an_unsupported_protocol_version_says_so_when_the_chat_opens(
    client, conversation, settings, tmp_path
):
    settings.MCP_SERVERS_FILE = str(broken_servers_file(tmp_path, "old-protocol"))
    page = client.post("/agents/mcp-test/new", follow=True).content.decode()
    [error] = errors(Conversation.objects.latest("pk"))
    assert error == (
        "Test server speaks MCP protocol version 2023-01-01, which this playground does not "
        "(it speaks 2024-11-05 to 2026-07-28): update the server or its MCP SDK."
    )
    assert "Test server speaks MCP protocol version 2023-01-01" in page


def test_a_tool_that_takes_a_secret_is_not_offered_a_form(client, conversation):
    send(client, conversation, "hi")
    answer(client, pending(conversation), tool="connect_database")
    [error] = errors(conversation)
    assert error.startswith("connect_database takes a secret (password) as an argument")
    assert not Part.objects.filter(state=Part.State.PENDING).exists()

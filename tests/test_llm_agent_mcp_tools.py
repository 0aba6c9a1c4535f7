"""MCP servers attached to an LLM agent (the SDK-built test server over stdio, through our
bridge): the model calls their tools, what the server asks becomes a form, and destructive
tools ask for approval first."""

import html
import json

import pytest
from pydantic_ai import BinaryContent

from playground.runs.models import Agent, WireMessage
from tests.support.live_server import wait_for
from tests.support.llm_support import REQUESTS, call, logged_in, scripted, tool_results  # noqa: F401
from tests.support.mcp_support import stdio_servers_file
from tests.support.runtime_helpers import agent_row, answer, pending, said, send, start

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("logged_in")]


@pytest.fixture
def conversation(settings, tmp_path, alice):
    settings.MCP_SERVERS_FILE = str(stdio_servers_file(tmp_path))
    agent = agent_row("test-llm")
    agent.config = {"mcp_servers": ["test"]}
    agent.save()
    return start(alice, "test-llm")


def result_text(messages) -> str:
    return tool_results(messages)[-1]


def test_the_model_sees_the_servers_tools_and_calls_one(client, conversation):
    scripted(
        [call("echo", text="hello there")], lambda messages: f"It said: {result_text(messages)}"
    )
    send(client, conversation, "say hello")
    assert said(conversation) == ["It said: hello there"]
    assert len(REQUESTS) == 2


def test_the_chat_offers_the_wire_panel_of_its_servers_messages_to_its_owner_only(
    client, conversation, alice, bob
):
    scripted([call("echo", text="over the wire")], "Done.")
    send(client, conversation, "say it")
    page = client.get(conversation.get_absolute_url()).content.decode()
    assert f'hx-get="/c/{conversation.pk}/wire"' in page
    calls = WireMessage.objects.filter(conversation=conversation, method="tools/call")
    wait_for(lambda: calls.filter(kind="response").exists())  # (written as the call goes on)
    panel = html.unescape(client.get(f"/c/{conversation.pk}/wire").content.decode())
    assert "tools/call" in panel and '"text": "over the wire"' in panel
    client.force_login(bob)
    assert client.get(f"/c/{conversation.pk}/wire").status_code == 404


def test_an_llm_agent_offers_the_wire_panel_only_when_it_has_mcp_servers(client, alice):
    for slug, config, offered in (
        ("with-servers", {"mcp_servers": ["test"]}, True),
        ("with-a-platform", {"platform": "github"}, True),
        ("model-only", {}, False),
    ):
        row = Agent.objects.create(slug=slug, name=slug, kind="llm", owner=alice, config=config)
        page = client.get(start(alice, row.slug).get_absolute_url()).content.decode()
        assert ("Wire: messages with the server" in page) is offered, slug


def test_the_model_gets_the_results_content_as_an_mcp_client_gives_it(client, conversation):
    scripted([call("weather", city="Oslo")], "Sunny.")
    send(client, conversation, "weather in Oslo?")
    [result] = tool_results(REQUESTS[1])
    # The text block, as text: not the wire record with its _meta and structuredContent.
    assert isinstance(result, str)
    assert json.loads(result) == {"city": "Oslo", "days": 1, "units": "metric", "forecast": "sunny"}


def test_an_image_goes_to_the_model_as_an_image_and_a_link_as_text(client, conversation):
    scripted([call("rich")], "Seen.")
    send(client, conversation, "show me")
    [blocks] = tool_results(REQUESTS[1])
    text, image, link, hostile = blocks
    assert text == "**Bold** and <script>alert(1)</script>"
    assert isinstance(image, BinaryContent) and image.media_type == "image/png"
    assert image.data.startswith(b"\x89PNG")
    assert (link, hostile) == ("report: https://example.com/report", "evil: javascript:alert(1)")


def test_an_error_result_tells_the_model_what_the_server_said(client, conversation):
    scripted([call("fails")], "The disk is full, sorry.")
    send(client, conversation, "try it")
    assert tool_results(REQUESTS[1]) == ["fails reported an error: The disk is full."]


def test_a_destructive_mcp_tool_asks_for_approval_first(client, conversation):
    scripted(
        [call("delete_everything", confirm_name="staging")],
        lambda messages: f"Done: {result_text(messages)}",
    )
    send(client, conversation, "wipe staging")
    card = pending(conversation)
    assert card.render_kind == "approval"
    assert card.payload["details"] == {"confirm_name": "staging"}
    answer(client, card, scope="once")
    assert said(conversation) == ["Done: Deleted everything in staging."]


def test_what_the_server_asks_becomes_a_form_in_the_chat(client, conversation):
    scripted([call("profile")], lambda messages: f"Got {result_text(messages)}")
    send(client, conversation, "set up my profile")
    question = pending(conversation)
    assert question.render_kind == "elicitation"
    assert question.message == "Tell me about yourself"
    profile = {
        "name": "Ada",
        "age": "36",
        "height": "1.7",
        "email": "ada@example.com",
        "birthday": "1815-12-10",
    }
    assert answer(client, question, **profile).status_code == 200
    reply = said(conversation)[0]
    assert reply.startswith("Got Profile: ")
    assert json.loads(reply.removeprefix("Got Profile: "))["name"] == "Ada"


def test_a_person_attaches_a_server_when_making_the_agent(client, settings, tmp_path):
    settings.MCP_SERVERS_FILE = str(stdio_servers_file(tmp_path))
    settings.LLM_BASE_URL, settings.LLM_MODELS = "http://127.0.0.1:9/v1", ["small"]
    assert "Test server" in client.get("/llm-agents/new").content.decode()
    data = {"name": "Helper", "model": "default/small", "mcp_servers": ["test"]}
    assert client.post("/llm-agents/new", data).status_code == 302
    assert Agent.objects.get(name="Helper").config["mcp_servers"] == ["test"]

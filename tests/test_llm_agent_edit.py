"""An LLM agent's owner edits it: instructions, model, temperature, MCP servers and toolsets
reach the model from the next message; nobody else can open the page."""

import pytest

from playground.runs.models import Agent, Conversation
from tests.support.admin_support import make_person
from tests.support.fake_openai import MODEL, FakeOpenAI, text
from tests.support.llm_support import logged_in  # noqa: F401  (also registers the "test-files" toolset)
from tests.support.mcp_support import stdio_servers_file
from tests.support.runtime_helpers import said, send

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("logged_in")]


@pytest.fixture
def fake(settings, tmp_path):
    server = FakeOpenAI(text("Hello."), text("Hello again."))
    settings.LLM_BASE_URL, settings.LLM_API_KEY = server.base_url, ""
    settings.LLM_MODELS = [MODEL, "bigger-model"]
    settings.MCP_SERVERS_FILE = str(stdio_servers_file(tmp_path))
    yield server
    server.close()


def make_painter(client) -> Conversation:
    data = {"name": "Painter", "model": f"default/{MODEL}", "instructions": "Be brief."}
    assert client.post("/llm-agents/new", data).status_code == 302
    return Conversation.objects.get(agent__name="Painter")


def test_the_owner_changes_what_the_model_is_told_and_the_next_message_uses_it(client, fake):
    conversation = make_painter(client)
    send(client, conversation, "hi")
    chat = client.get(f"/c/{conversation.pk}/").content.decode()
    edit = f"/llm-agents/{conversation.agent.slug}/edit"
    assert f'href="{edit}?next=/c/{conversation.pk}/">Edit Painter</a>' in chat

    page = client.get(edit).content.decode()
    assert "Be brief." in page and f'value="default/{MODEL}" selected' in page
    assert "Files (test): size and delete" in page  # a registered toolset, to choose
    assert "Test server" in page  # an MCP server of the servers file
    response = client.post(
        edit,
        {
            "name": "Painter",
            "model": "default/bigger-model",
            "instructions": "Answer in French.",
            "temperature": "0.2",
            "toolsets": ["test-files"],
            "mcp_servers": ["test"],
            "next": f"/c/{conversation.pk}/",
        },
    )
    assert response["Location"] == f"/c/{conversation.pk}/"
    agent = Agent.objects.get(pk=conversation.agent_id)
    assert agent.config == {
        "provider": "default",
        "model": "bigger-model",
        "instructions": "Answer in French.",
        "temperature": 0.2,
        "toolsets": ["test-files"],
        "mcp_servers": ["test"],
    }
    assert agent.description == "Answers with bigger-model."

    send(client, conversation, "again")
    assert said(conversation) == ["Hello.", "Hello again."]
    first, second = fake.requests
    assert first["model"] == MODEL and "temperature" not in first
    assert second["model"] == "bigger-model" and second["temperature"] == 0.2
    assert second["messages"][0] == {"role": "system", "content": "Answer in French."}
    offered = {tool["function"]["name"] for tool in second["tools"]}
    assert {"request_input", "file_size", "delete_file"} <= offered


def test_a_toolset_can_be_chosen_when_making_the_agent(client, fake):
    data = {"name": "Filer", "model": f"default/{MODEL}", "toolsets": ["test-files"]}
    assert client.post("/llm-agents/new", data).status_code == 302
    assert Agent.objects.get(name="Filer").config["toolsets"] == ["test-files"]


def test_an_edit_keeps_what_the_wizard_set_and_clears_what_was_unticked(client, alice, fake):
    agent = Agent.objects.create(
        slug="watcher",
        name="Watcher",
        description="Watches the repository.",
        kind="llm",
        owner=alice,
        config={
            "provider": "default",
            "model": MODEL,
            "platform": "github",
            "trigger": {"kind": "daily", "time": "09:00"},
            "toolsets": ["test-files"],
            "temperature": 1,
        },
    )
    data = {"name": "Watcher", "model": f"default/{MODEL}", "instructions": "Look."}
    assert client.post(f"/llm-agents/{agent.slug}/edit", data)["Location"] == "/"
    agent.refresh_from_db()
    assert agent.config == {
        "provider": "default",
        "model": MODEL,
        "platform": "github",
        "trigger": {"kind": "daily", "time": "09:00"},
        "instructions": "Look.",
    }
    assert agent.description == "Watches the repository."


def test_a_model_no_longer_offered_is_named_so_another_is_picked(client, alice, fake):
    agent = Agent.objects.create(
        slug="old",
        name="Old",
        kind="llm",
        owner=alice,
        config={"provider": "default", "model": "retired-model"},
    )
    page = client.get(f"/llm-agents/{agent.slug}/edit").content.decode()
    assert "This agent used default/retired-model, which this playground no longer offers" in page


def test_nobody_else_can_open_or_post_the_page(client, alice, fake, seeded):
    other = make_person("mallory")
    theirs = Agent.objects.create(slug="theirs", name="Theirs", kind="llm", owner=other)
    for slug in ("theirs", "deploy-assistant", "nothing-here"):
        assert client.get(f"/llm-agents/{slug}/edit").status_code == 404
    data = {"name": "Mine now", "model": f"default/{MODEL}"}
    assert client.post("/llm-agents/theirs/edit", data).status_code == 404
    theirs.refresh_from_db()
    assert theirs.name == "Theirs"


def test_a_bad_value_is_refused_with_what_was_typed_kept(client, fake):
    conversation = make_painter(client)
    edit = f"/llm-agents/{conversation.agent.slug}/edit"
    data = {
        "name": "Painter",
        "model": f"default/{MODEL}",
        "instructions": "Keep me.",
        "temperature": "7",
        "next": "https://elsewhere.example/",
    }
    response = client.post(edit, data)
    assert response.status_code == 422
    page = response.content.decode()
    assert "Ensure this value is less than or equal to 2" in page and "Keep me." in page
    assert "elsewhere.example" not in page  # an outside address is never a way back
    assert Agent.objects.get(pk=conversation.agent_id).config["instructions"] == "Be brief."

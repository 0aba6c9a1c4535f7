"""An LLM agent's owner opens its edit page from the chat, changes the model and the
instructions, and the next reply comes from the new model (a real Chromium; the page looked
at 375 px and 1366 px, light and dark, axe clean)."""

import pytest
from playwright.sync_api import Page, expect

from tests.browser.axe import look_at
from tests.browser.chat import send, socket_open
from tests.browser.conftest import served_copy
from tests.support.fake_openai import MODEL, FakeOpenAI, text
from tests.support.mcp_support import stdio_servers_file

pytestmark = pytest.mark.timeout(300)  # the module's own server starts on a busy machine


@pytest.fixture(scope="module")
def fake():
    fake = FakeOpenAI(text("Hello."), text("Bonjour."))
    yield fake
    fake.close()


@pytest.fixture(scope="module")
def live_server(tmp_path_factory, prepared_database, fake):
    """This module's server knows two models, both answered by the fake server, and an MCP
    server (its checkboxes are on the page)."""
    workdir = tmp_path_factory.mktemp("llm-edit")
    env = {
        "LLM_BASE_URL": fake.base_url,
        "LLM_MODELS": f"{MODEL},bigger-model",
        "MCP_SERVERS_FILE": str(stdio_servers_file(workdir)),
    }
    with served_copy(prepared_database, workdir, env) as server:
        yield server


def test_the_owner_edits_the_agent_from_its_chat(page: Page, live_server, fake):
    page.set_default_timeout(30_000)
    page.get_by_role("link", name="New LLM agent").click()
    page.get_by_label("Name").fill("Greeter")
    page.get_by_label("Instructions").fill("Greet the person.")
    page.get_by_role("button", name="Create and start chatting").click()
    page.wait_for_url("**/c/*/")
    socket_open(page)
    send(page, "hi")
    # (The first model turn imports the client library: seconds on a busy machine.)
    page.locator(".bubble.agent", has_text="Hello.").wait_for()
    chat = page.url
    look_at(page, "llm-agent-chat-with-edit-link")

    page.get_by_role("link", name="Edit Greeter").click()
    expect(page.get_by_role("heading", name="Edit Greeter")).to_be_visible()
    expect(page.get_by_label("Instructions")).to_have_value("Greet the person.")
    expect(page.get_by_role("group", name="MCP servers")).to_contain_text("Test server")
    look_at(page, "llm-agent-edit")
    page.get_by_label("Model").select_option("default/bigger-model")
    page.get_by_label("Instructions").fill("Greet the person in French.")
    page.get_by_label("Temperature").fill("9")
    page.get_by_role("button", name="Save changes").click()
    # Refused next to the field, with what was typed kept.
    expect(page.get_by_role("alert")).to_contain_text("less than or equal to 2")
    expect(page.get_by_label("Instructions")).to_have_value("Greet the person in French.")
    look_at(page, "llm-agent-edit-refused")
    page.get_by_label("Temperature").fill("0.3")
    page.get_by_role("button", name="Save changes").click()

    page.wait_for_url(chat)
    expect(page.get_by_text("Answers with bigger-model.")).to_be_visible()
    socket_open(page)
    send(page, "hi again")
    page.locator(".bubble.agent", has_text="Bonjour.").wait_for()
    second = fake.requests[-1]
    assert (second["model"], second["temperature"]) == ("bigger-model", 0.3)
    assert second["messages"][0]["content"] == "Greet the person in French."

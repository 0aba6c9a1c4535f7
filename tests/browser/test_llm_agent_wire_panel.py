"""An LLM agent with an MCP server shows the same Wire panel as the server's own chat: the
model calls the server's tool, and the panel lists the JSON-RPC of that call."""

import sys

import pytest
from playwright.sync_api import expect

from tests.browser.axe import look_wide_light_and_narrow_dark
from tests.browser.chat import send, socket_open
from tests.browser.conftest import served_copy
from tests.support.fake_openai import MODEL, FakeOpenAI, text, tool_calls
from tests.support.mcp_support import TEST_SERVER

pytestmark = pytest.mark.timeout(300)  # the module's own server starts on a busy machine


@pytest.fixture(scope="module")
def live_server(tmp_path_factory, prepared_database):
    """A server with the test MCP server and one model, the fake one: it calls `echo`."""
    model = FakeOpenAI(tool_calls(("echo", {"text": "hello wire"})), text("It said hello wire."))
    workdir = tmp_path_factory.mktemp("llm-wire")
    servers_file = workdir / "servers.toml"
    servers_file.write_text(
        f'[servers.test]\ntitle = "Test server"\ntransport = "stdio"\n'
        f'command = "{sys.executable}"\nargs = ["{TEST_SERVER}"]\n'
    )
    env = {"LLM_BASE_URL": model.base_url, "LLM_MODELS": MODEL}
    env["MCP_SERVERS_FILE"] = str(servers_file)
    try:
        with served_copy(prepared_database, workdir, env) as server:
            yield server
    finally:
        model.close()


def test_the_llm_agents_chat_shows_the_wire_of_its_mcp_server(page, live_server):
    page.set_default_timeout(30_000)
    page.click("text=New LLM agent")
    page.fill("#id_name", "Echoer")
    page.select_option("#id_model", f"default/{MODEL}")
    page.get_by_label("Test server").check()
    page.click("text=Create and start chatting")
    page.wait_for_url("**/c/*/")
    socket_open(page)
    send(page, "say hello over the wire")
    page.locator(".bubble.agent", has_text="It said hello wire.").wait_for()

    panel = page.locator("details.wire-panel")
    panel.locator("summary", has_text="Wire: messages with the server").click()
    entries = panel.locator(".wire-entry")
    expect(entries.filter(has_text="→ sent").filter(has_text="tools/call")).to_have_count(1)
    expect(entries.filter(has_text="← received").filter(has_text="tools/call")).to_have_count(1)
    call = entries.filter(has_text="→ sent").filter(has_text="tools/call")
    call.locator("summary").click()
    expect(call.locator("pre")).to_contain_text('"text": "hello wire"')

    look_wide_light_and_narrow_dark(page, "llm-wire-panel", "LLM agent wire panel")

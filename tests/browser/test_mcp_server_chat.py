"""A person calls a real MCP server's tool from the chat and answers the form it asks."""

import re
import sys

import pytest
from playwright.sync_api import expect

from tests.browser.axe import look_wide_light_and_narrow_dark, serious_findings
from tests.browser.chat import ARTIFACTS, open_chat, screenshot, send, socket_open
from tests.browser.conftest import served_copy
from tests.support.mcp_support import TEST_SERVER

# Starting the playground and the MCP server processes is most of the time, on a busy machine.
pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def live_server(tmp_path_factory, prepared_database):
    workdir = tmp_path_factory.mktemp("mcp-browser")
    servers_file = workdir / "servers.toml"
    servers_file.write_text(
        f'[servers.test]\ntitle = "Test server"\ndescription = "The SDK-built test server."\n'
        f'transport = "stdio"\ncommand = "{sys.executable}"\nargs = ["{TEST_SERVER}"]\n'
        f'\n[servers.legacy]\ntitle = "Legacy"\ntransport = "stdio"\nprotocol = "legacy"\n'
        f'command = "{sys.executable}"\nargs = ["{TEST_SERVER}"]\n'
    )
    with served_copy(
        prepared_database,
        workdir,
        {"MCP_SERVERS_FILE": str(servers_file)},
        before_start=lambda server: server.manage("mcp_check"),
    ) as server:  # connects, lists the tools, and puts the server on the home page
        yield server


def test_a_tool_is_picked_its_arguments_filled_and_its_question_answered(page, live_server):
    open_chat(page, live_server, "Test server")
    # The server speaks first: its tools and the question which one, before anyone writes.
    page.locator(".display-card", has_text="Tools of Test server").wait_for()
    pick = page.locator("article.part--pending", has_text="Which tool of Test server")
    pick.wait_for()
    assert page.locator(".bubble.person").count() == 0
    screenshot(page, "mcp-opening")
    page.reload()
    socket_open(page)
    pick.wait_for()
    assert page.locator(".display-card", has_text="Tools of Test server").count() == 1
    pick.get_by_label("Tool").select_option("profile")
    pick.get_by_role("button", name="Submit").click()

    form = page.locator("article.part--pending", has_text="Tell me about yourself")
    form.wait_for()
    form.locator("[name='answer.name']").fill("Ada")
    form.locator("[name='answer.age']").fill("36")
    form.locator("[name='answer.height']").fill("1.7")
    form.get_by_label("Pro").check()
    form.get_by_label("Music").check()
    form.locator("[name='answer.email']").fill("ada@example.com")
    form.locator("[name='answer.birthday']").fill("1815-12-10")
    page.set_viewport_size({"width": 1366, "height": 1100})
    screenshot(page, "mcp-form")
    assert serious_findings(page, "MCP elicitation form") == []
    form.get_by_role("button", name="Submit").click()

    reply = page.locator(".bubble.agent", has_text="Profile:")
    reply.wait_for()
    assert '"plan":"pro"' in reply.inner_text()
    assert '"topics":["music"]' in reply.inner_text()
    chip = page.locator("article.part", has_text="Tell me about yourself").inner_text()
    assert "Answered by alice" in chip and "ada@example.com" in chip
    page.screenshot(path=ARTIFACTS / "mcp-answered.png", full_page=True)
    page.set_viewport_size({"width": 375, "height": 900})
    page.emulate_media(color_scheme="dark")
    page.screenshot(path=ARTIFACTS / "mcp-answered-dark-375.png", full_page=True)
    assert serious_findings(page, "MCP chat, dark, 375 px") == []
    # Long tool descriptions wrap inside the card instead of widening the page.
    assert page.evaluate("document.documentElement.scrollWidth") <= 375


def test_a_servers_url_request_is_opened_and_done_and_the_tool_finishes(page, live_server):
    # The server's sign-in page is answered here: the test never leaves the machine.
    page.context.route(
        "https://example.com/**", lambda route: route.fulfill(body="<title>Signed in</title>")
    )
    open_chat(page, live_server, "Test server")
    send(page, "login")
    card = page.locator("article.part--url.part--pending")
    card.wait_for()
    assert "Test server asks you to open a page" in card.inner_text()
    assert card.locator(".url-host").inner_text() == "example.com"
    with page.context.expect_page() as opened:
        card.get_by_role("link", name="Open example.com").click()
    assert opened.value.evaluate("window.opener") is None
    waiting = page.locator("article.part--url-wait.part--pending")
    waiting.wait_for()
    assert "Waiting for Test server…" in waiting.inner_text()
    waiting.get_by_role("button", name="I'm done").click()
    page.locator(".bubble.agent", has_text="Login: accept").wait_for()


def test_a_question_held_on_a_live_session_reads_as_waiting(page, live_server):
    open_chat(page, live_server, "Legacy")
    picker = page.locator("article.part--pending", has_text="Which tool of Legacy")
    picker.wait_for()
    send(page, "legacy_profile")  # called by name: the opening question is answered by that
    form = page.locator("article.part--pending", has_text="Tell me about yourself")
    form.wait_for()
    status = page.locator("#status")
    expect(status).to_have_text(re.compile(r"^\s*1 question waiting for you\s*$"))
    expect(status.get_by_role("button", name="Stop")).to_have_count(0)
    expect(picker).to_have_count(0)
    page.set_viewport_size({"width": 1366, "height": 900})
    screenshot(page, "mcp-held-waiting")
    assert serious_findings(page, "MCP held question") == []
    page.set_viewport_size({"width": 375, "height": 800})
    page.emulate_media(color_scheme="dark")
    form.get_by_role("button", name="Decline").scroll_into_view_if_needed()
    screenshot(page, "mcp-held-waiting-dark-375")
    assert serious_findings(page, "MCP held question, dark, 375 px") == []
    form.get_by_role("button", name="Decline").click()
    page.locator(".bubble.agent", has_text="No profile: decline").wait_for()
    expect(status).not_to_contain_text("waiting")


def test_the_wire_panel_shows_the_messages_with_the_server(page, live_server):
    open_chat(page, live_server, "Test server")
    page.locator("article.part--pending", has_text="Which tool of Test server").wait_for()
    send(page, 'echo {"text": "hello wire"}')
    page.locator(".bubble.agent", has_text="hello wire").wait_for()
    # The result is beside its raw JSON, in the step of the call.
    step = page.locator("details.step", has_text="test: echo")
    step.locator("summary").click()
    expect(step.locator("pre")).to_contain_text('"text": "hello wire"')

    panel = page.locator("details.wire-panel")
    panel.locator("summary", has_text="Wire: messages with the server").click()
    entries = panel.locator(".wire-entry")
    expect(entries.first).to_contain_text("connection")
    expect(entries.first).to_contain_text("Starting ")
    call = entries.filter(has_text="→ sent").filter(has_text="tools/call")
    expect(call).to_have_count(1)
    expect(entries.filter(has_text="← received").filter(has_text="tools/call")).to_have_count(1)
    # A later call shows after Refresh.
    send(page, 'echo {"text": "second"}')
    page.locator(".bubble.agent", has_text="second").wait_for()
    panel.get_by_role("button", name="Refresh").click()
    expect(panel.locator(".wire-entry", has_text="tools/call")).to_have_count(4)
    first_call = panel.locator(".wire-entry", has_text="tools/call").first
    first_call.locator("summary").click()
    expect(first_call.locator("pre")).to_contain_text('"method": "tools/call"')
    look_wide_light_and_narrow_dark(panel, "mcp-wire-panel", "MCP wire panel")

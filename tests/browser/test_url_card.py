"""A server's URL-mode request: the card shows where the link goes, Open opens it in a new tab
and counts as the answer, and the wait that follows ends with "I'm done"."""

import pytest

from tests.browser.axe import serious_findings
from tests.browser.chat import screenshot, send, socket_open
from tests.browser.conftest import log_in, refused_by_policy, served_copy
from tests.support.live_server import LiveServer
from tests.support.runtime_agents import GITHUB_SIGN_IN

NEW_CONVERSATION = """
from django.contrib.auth.models import User
from playground.runs.models import Agent, Conversation
agent, _ = Agent.objects.get_or_create(
    slug="test-url", defaults={"name": "Test URL", "kind": "test-url"}
)
print(Conversation.objects.create(owner=User.objects.get(username="alice"), agent=agent).pk)
"""


@pytest.fixture(scope="module")
def live_server(tmp_path_factory, prepared_database):
    """The embedded server with the test agents loaded (the URL one among them)."""
    with served_copy(
        prepared_database,
        tmp_path_factory.mktemp("url"),
        {"AGENT_MODULES": "tests.support.runtime_agents"},
    ) as server:
        yield server


def ask_to_open(page, server: LiveServer):
    """Open a new conversation with the URL agent and return its pending card."""
    # The sign-in page is answered here: the test never leaves the machine.
    page.context.route(
        "https://github.com/**", lambda route: route.fulfill(body="<title>Signed in</title>")
    )
    # The shell prints what it imported first; the id is the last line.
    conversation = server.manage("shell", "-c", NEW_CONVERSATION).split()[-1]
    page.set_default_timeout(30_000)  # four test modules run at once
    page.goto(f"{server.url}/c/{conversation}/")
    socket_open(page)
    send(page, GITHUB_SIGN_IN)
    card = page.locator("article.part--url.part--pending")
    card.wait_for()
    return card


def test_open_goes_to_the_page_in_a_new_tab_then_i_am_done(page, live_server):
    card = ask_to_open(page, live_server)
    assert "github asks you to open a page" in card.inner_text()
    assert card.locator(".url-host").inner_text() == "github.com"
    assert card.locator(".url-line").inner_text().endswith(GITHUB_SIGN_IN)
    assert serious_findings(page, "URL card") == []

    with page.context.expect_page() as opened:
        card.get_by_role("link", name="Open github.com").click()
    tab = opened.value
    tab.wait_for_load_state()
    assert tab.url == GITHUB_SIGN_IN
    assert tab.evaluate("window.opener") is None  # noopener: the page cannot reach the chat

    chip = page.locator("article.part--url.part--submitted")
    chip.wait_for()
    assert "Opened github.com" in chip.inner_text()
    waiting = page.locator("article.part--url-wait.part--pending")
    waiting.wait_for()
    assert "Waiting for github…" in waiting.inner_text()
    screenshot(page, "url-card-waiting")

    waiting.get_by_role("button", name="I'm done").click()
    page.locator(".bubble.agent", has_text="Signed in: accept.").wait_for()
    assert "Marked done by alice" in page.locator("article.part--url-wait").inner_text()


@pytest.mark.parametrize(("scheme", "width"), [("light", 1366), ("dark", 375)])
def test_the_card_reads_well_light_and_dark_on_a_phone(browser, live_server, scheme, width):
    context = browser.new_context(color_scheme=scheme, viewport={"width": width, "height": 800})
    page = context.new_page()
    refused = refused_by_policy(page)
    log_in(page, live_server)
    card = ask_to_open(page, live_server)

    screenshot(card, f"url-card-{scheme}-{width}")
    assert serious_findings(page, f"URL card, {scheme}, {width} px") == []
    box = card.bounding_box()
    assert box["x"] + box["width"] <= width  # the long URL wraps instead of widening the page
    card.get_by_role("button", name="Decline").click()
    page.locator(".bubble.agent", has_text="Not opened: decline").wait_for()
    context.close()
    assert not refused, refused

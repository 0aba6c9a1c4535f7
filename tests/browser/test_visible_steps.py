"""A person watches the agent's steps: running (a spinner) while a step runs, then how it went,
collapsed until opened, the same after a reload. Light and dark, phone and desktop, axe clean."""

import os
import re

import pytest
from playwright.sync_api import expect

from tests.browser.axe import serious_findings
from tests.browser.chat import ARTIFACTS, open_chat, screenshot, send, unstick_composer
from tests.browser.conftest import log_in, served_copy
from tests.support.live_server import BASE_DIR
from tests.support.runtime_agents import CARD_KEY

pytestmark = pytest.mark.timeout(300)  # the module's own server starts on a busy machine

SIZES = [("light", 1366), ("light", 375), ("dark", 1366), ("dark", 375)]
SET_UP = (
    "from django.contrib.auth.models import User\n"
    "from playground.runs.models import Agent\n"
    "Agent.objects.create(slug='test-steps', name='Test steps', kind='test-steps', builtin=True)\n"
    "User.objects.filter(username='bob').update(is_staff=True, is_superuser=True)"
)


@pytest.fixture(scope="module")
def markers(tmp_path_factory):
    return tmp_path_factory.mktemp("markers")


@pytest.fixture(scope="module")
def live_server(tmp_path_factory, prepared_database, markers):
    """This module's server runs the test agents; its lookup step waits for `release`."""
    env = {"AGENT_MODULES": "tests.support.runtime_agents", "TEST_MARKER_DIR": str(markers)}
    with served_copy(
        prepared_database,
        tmp_path_factory.mktemp("steps"),
        env,
        before_start=lambda server: server.manage("shell", "-c", SET_UP),
    ) as server:  # bob reviews in the admin
        yield server


def look(page, name: str, *, for_readme: bool = False) -> None:
    """Screenshot the page at each size and scheme, and check each with axe and that nothing
    scrolls sideways. README_SCREENSHOTS=1 (with `for_readme`) refreshes the README's."""
    docs = BASE_DIR / "docs/screenshots" if os.environ.get("README_SCREENSHOTS") else ARTIFACTS
    findings = []
    for scheme, width in SIZES:
        page.emulate_media(color_scheme=scheme)
        page.set_viewport_size({"width": width, "height": 900})
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        screenshot(page, f"steps-{name}-{scheme}-{width}")
        if for_readme and scheme == "light":
            unstick_composer(page)
            docs.mkdir(parents=True, exist_ok=True)
            page.locator(".turn").last.screenshot(path=docs / f"steps-{width}.png")
        findings += serious_findings(page, f"steps {name}, {scheme}, {width} px")
    page.emulate_media(color_scheme="light")
    assert findings == []


def test_steps_show_while_they_run_and_after_a_reload(page, live_server, markers):
    (markers / "release").unlink(missing_ok=True)  # the lookup waits until the test says
    open_chat(page, live_server, "Test steps")
    send(page, "order-42")

    running = page.locator("details.step", has_text="look up the order")
    expect(running).to_have_attribute("data-state", "step-running")
    expect(running.locator("summary")).to_contain_text("running…")
    expect(running).not_to_have_attribute("open", "")
    look(page, "running")

    (markers / "release").touch()
    lookup = page.locator("details.step", has_text="look up the order")
    charge = page.locator("details.step", has_text="charge the card")
    expect(lookup).to_have_attribute("data-state", "step-done")
    expect(charge).to_have_attribute("data-state", "step-failed")
    expect(page.get_by_text("The card was declined, so nothing was charged.")).to_be_visible()
    expect(charge.locator("summary")).to_contain_text("failed ·")
    expect(charge.locator(".step-details")).to_be_hidden()  # collapsed until opened

    charge.locator("summary").click()
    details = charge.locator(".step-details")
    expect(details).to_be_visible()
    expect(details).to_contain_text('api_key: "[redacted]"')
    expect(details).to_contain_text("RuntimeError: card declined for order-42")
    assert CARD_KEY not in page.content()
    look(page, "finished", for_readme=True)

    page.reload()
    steps = page.locator("details.step")
    expect(steps).to_have_count(2)
    expect(page.locator("details.step[open]")).to_have_count(0)
    expect(steps.nth(0)).to_have_attribute("data-state", "step-done")
    expect(steps.nth(1)).to_have_attribute("data-state", "step-failed")
    steps.nth(0).locator("summary").click()
    expect(steps.nth(0).locator(".step-details")).to_contain_text('order: "order-42"')
    expect(steps.nth(0).locator(".step-details")).to_contain_text('"total": 1200')
    look(page, "reloaded")


def test_the_admin_transcript_shows_the_steps(browser, live_server, markers):
    (markers / "release").touch()
    context = browser.new_context()
    page = context.new_page()
    log_in(page, live_server)
    open_chat(page, live_server, "Test steps")
    send(page, "order-43")
    expect(page.locator("details.step--failed")).to_have_count(1)
    conversation = page.url.rstrip("/").rsplit("/", 1)[-1]
    context.close()

    context = browser.new_context()
    page = context.new_page()
    log_in(page, live_server, "bob")
    page.goto(f"{live_server.url}/admin/playground/conversation/{conversation}/change/")
    frame = page.frame_locator("iframe.chat-frame")
    expect(frame.locator("details.step")).to_have_count(2)
    frame.locator("details.step--failed summary").click()
    expect(frame.locator("details.step--failed .step-details")).to_contain_text("[redacted]")
    for scheme, width in SIZES:
        page.emulate_media(color_scheme=scheme)
        page.set_viewport_size({"width": width, "height": 900})
        screenshot(page, f"steps-admin-{scheme}-{width}")
    assert CARD_KEY not in page.content()
    context.close()


def test_a_step_that_overtakes_its_turn_is_shown_once_the_turn_is(page, live_server, markers):
    """A fast agent's first step can reach the tab before its turn does (the push of the turn
    lost the race, or came from another process): it is shown as soon as the turn is."""
    (markers / "release").unlink(missing_ok=True)
    relayed = []

    def relay(socket):
        server = socket.connect_to_server()

        def to_page(message: str) -> None:
            if "#transcript" in message:
                return  # the turn's own push is dropped: the send's response brings the turn
            relayed.append(message)
            socket.send(message)

        server.on_message(to_page)

    page.route_web_socket(re.compile(r"/ws/"), relay)
    held = []  # the send's response, held until the step has reached the tab
    page.route("**/send", lambda route: held.append((route, route.fetch())))
    open_chat(page, live_server, "Test steps")
    send(page, "order-44")

    for _ in range(600):  # Playwright runs the relay while the page is waited on
        if any("step-running" in message for message in relayed):
            break
        page.wait_for_timeout(50)
    else:
        pytest.fail("the running step's push never reached the tab")
    expect(page.locator("details.step")).to_have_count(0)  # no turn to show it in yet
    route, response = held.pop()
    route.fulfill(response=response)

    running = page.locator("#transcript details.step", has_text="look up the order")
    expect(running).to_have_attribute("data-state", "step-running")
    (markers / "release").touch()
    expect(running).to_have_attribute("data-state", "step-done")
    expect(page.locator("details.step")).to_have_count(2)

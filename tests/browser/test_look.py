"""Screenshots to look at (test-artifacts/, not committed), light and dark, 375 px wide.

A screenshot proves nothing by itself: the assertions here are that nothing overflows
sideways on a phone. README_SCREENSHOTS=1 also refreshes docs/screenshots/ for the README.
"""

import json
import os

import pytest
from playwright.sync_api import Page

from tests.browser.chat import ARTIFACTS, ask, open_chat, screenshot, send, unstick_composer
from tests.browser.conftest import log_in
from tests.support.golden import reference_examples
from tests.support.live_server import BASE_DIR

LOOKS = {
    "light": ("light", 900),
    "dark": ("dark", 900),
    "phone": ("light", 375),
    "phone-dark": ("dark", 375),
    "wide": ("light", 1366),
}
EVERYTHING = reference_examples()["everything_server_all_types"]
NESTED = {"type": "object", "properties": {"config": {"type": "object"}}}


def fits_sideways(page: Page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


@pytest.fixture(params=list(LOOKS))
def look(request, browser, live_server):
    scheme, width = LOOKS[request.param]
    context = browser.new_context(color_scheme=scheme, viewport={"width": width, "height": 900})
    page = context.new_page()
    log_in(page, live_server)
    yield request.param, page
    context.close()


def test_every_surface_fits_the_screen_in_each_look(look, live_server):
    name, page = look
    screenshot(page, f"home-{name}")
    assert fits_sideways(page)

    open_chat(page, live_server, "Schema tester")
    part = ask(page, EVERYTHING["message"], EVERYTHING["requestedSchema"])
    screenshot(part, f"form-{name}")
    assert fits_sideways(page)

    part.get_by_label("String").fill("Ada Lovelace")
    part.get_by_label("Email").fill("ada@example.com")
    part.get_by_role("button", name="Submit").click()
    page.locator(".bubble.agent", has_text="I received this envelope").wait_for()
    screenshot(page.locator("article.part--submitted"), f"chip-{name}")
    assert fits_sideways(page)

    send(page, json.dumps({"message": "Configure it", "requestedSchema": NESTED}))
    degraded = page.locator("article.part--degraded")
    degraded.wait_for()
    screenshot(degraded, f"degraded-{name}")
    screenshot(page, f"conversation-{name}")
    assert fits_sideways(page)


def test_the_readme_screenshots_show_a_form_and_its_chip(browser, live_server):
    context = browser.new_context(viewport={"width": 900, "height": 900})
    page = context.new_page()
    log_in(page, live_server)
    open_chat(page, live_server, "Deploy assistant")
    unstick_composer(page)
    send(page, "Ship the new checkout page")
    form = page.locator("article.part--pending")
    form.get_by_label("Staging").check()
    form.get_by_label("Version").fill("v1.4.2")
    # Written to test-artifacts/ on every run; README_SCREENSHOTS=1 refreshes the README's.
    docs = BASE_DIR / "docs/screenshots" if os.environ.get("README_SCREENSHOTS") else ARTIFACTS
    docs.mkdir(parents=True, exist_ok=True)
    form.evaluate("e => document.activeElement.blur()")
    page.locator(".turn").last.screenshot(path=docs / "form.png")

    form.get_by_role("button", name="Submit").click()
    page.locator(".part--approval.part--pending").get_by_role(
        "button", name="Approve"
    ).first.click()
    page.locator(".bubble.agent", has_text="Deployed").wait_for()
    assert "Staging" in page.locator(".part--submitted").first.inner_text()
    page.locator(".turn").last.screenshot(path=docs / "chip.png")
    context.close()

"""What a person does in the chat, as steps the browser tests share."""

import json
from pathlib import Path

from playwright.sync_api import Locator, Page

from tests.support.live_server import BASE_DIR

ARTIFACTS = BASE_DIR / "test-artifacts"


def open_chat(page: Page, server, agent: str) -> None:
    """Start a new conversation with an agent from the home page, with its socket open."""
    page.set_default_timeout(30_000)  # `make test` runs four modules at once on a small machine
    page.goto(server.url + "/")
    page.click(f"text=Chat with {agent}")
    page.wait_for_url("**/c/*/")
    socket_open(page)


def socket_open(page: Page) -> None:
    # The consumer sends a resync on connect: once applied, pushes reach this tab.
    page.wait_for_selector("body[data-socket=live]", state="attached")


def send(page: Page, text: str) -> None:
    page.fill("#composer-text", text)
    page.keyboard.press("Enter")


def ask(page: Page, message: str, schema: dict) -> Locator:
    """Paste a request_input payload into the Schema tester; return the form it shows."""
    send(page, json.dumps({"message": message, "requestedSchema": schema}))
    part = page.locator("article.part").last
    part.locator("form[data-part-form]").wait_for()
    return part


def last_envelope(page: Page) -> dict:
    """Return the envelope JSON the Schema tester says it received, once it says it."""
    reply = page.locator(".bubble.agent", has_text="I received this envelope").last
    return json.loads(reply.locator("pre code").inner_text())


def unstick_composer(page: Page) -> None:
    """Let the sticky composer scroll with the page, so screenshots show what is under it.

    A rule added through the CSSOM: the Content-Security-Policy refuses an added <style>.
    """
    page.evaluate("document.styleSheets[0].insertRule('.composer { position: static; }')")


def screenshot(target: Page | Locator, name: str) -> Path:
    """Save a screenshot under test-artifacts/ (not committed) and return its path."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    if isinstance(target, Locator):
        unstick_composer(target.page)  # it would be drawn over the part it scrolls to
    target.screenshot(path=path)
    return path

"""Declining or cancelling a question turns it into a chip and tells the agent."""

import pytest

from tests.browser.chat import ask, last_envelope, open_chat

NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


@pytest.mark.parametrize(("button", "chip"), [("Decline", "Declined"), ("Cancel", "Cancelled")])
def test_the_person_can_decline_or_cancel_without_filling_anything(page, live_server, button, chip):
    open_chat(page, live_server, "Schema tester")
    part = ask(page, "What should I call you?", NAME)
    part.get_by_role("button", name=button, exact=True).click()

    page.locator(".bubble.agent", has_text="I received this envelope").wait_for()
    assert last_envelope(page) == {"action": button.lower()}
    settled = page.locator(f"article.part--{chip.lower()}")
    assert f"{chip} by alice" in settled.inner_text()

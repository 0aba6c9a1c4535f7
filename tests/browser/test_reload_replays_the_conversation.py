"""Reloading renders the conversation from the database: live forms, chips, degraded reasons."""

import json

from tests.browser.chat import ask, last_envelope, open_chat, send, socket_open

NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def test_a_pending_question_still_accepts_after_a_reload_and_its_chip_stays(page, live_server):
    open_chat(page, live_server, "Schema tester")
    ask(page, "What should I call you?", NAME)

    page.reload()
    socket_open(page)
    part = page.locator("article.part--pending")
    assert "What should I call you?" in part.inner_text()
    part.get_by_label("Name").fill("Grace")
    part.get_by_role("button", name="Submit").click()
    page.locator(".bubble.agent", has_text="I received this envelope").wait_for()
    assert last_envelope(page) == {"action": "accept", "content": {"name": "Grace"}}

    page.reload()
    chip = page.locator("article.part--submitted")
    assert "Grace" in chip.inner_text() and "Answered by alice" in chip.inner_text()
    assert page.locator("article form").count() == 0
    assert page.title().startswith("Schema tester")  # nothing waits any more


def test_a_degraded_question_shows_its_reason_before_and_after_a_reload(page, live_server):
    open_chat(page, live_server, "Schema tester")
    nested = {"type": "object", "properties": {"config": {"type": "object"}}}
    send(page, json.dumps({"message": "Configure it", "requestedSchema": nested}))
    reply = page.locator(".bubble.agent", has_text="I received this error")
    reply.wait_for()
    assert "elicitation: unsupported payload" in reply.inner_text()

    for _ in range(2):
        degraded = page.locator("article.part--degraded")
        assert 'property "config" is nested' in degraded.inner_text()
        assert "Configure it" in degraded.inner_text()
        page.reload()

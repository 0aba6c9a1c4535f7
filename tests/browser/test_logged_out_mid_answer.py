"""Logged out in one tab, answering in another: a message and a way back, nothing typed lost."""

from playwright.sync_api import expect

from tests.browser.chat import ask, open_chat, send, socket_open
from tests.browser.conftest import USERS

SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string", "title": "City"}},
    "required": ["city"],
}


def test_an_answer_and_a_message_survive_an_expired_session(page, live_server):
    open_chat(page, live_server, "Schema tester")
    chat_url = page.url
    part = ask(page, "Where to?", SCHEMA)
    part.get_by_label("City").fill("Bergen")
    page.fill("#composer-text", "and a message typed meanwhile")

    other = page.context.new_page()
    other.goto(live_server.url + "/")
    other.get_by_role("button", name="Log out").click()
    # Close only once the login page has committed: Chromium can acknowledge a close that races
    # a navigation commit and never close the tab (microsoft/playwright#42366).
    expect(other.locator("#id_username")).to_be_visible()
    other.wait_for_load_state()
    other.close()

    part.get_by_role("button", name="Submit").click()
    note = part.get_by_role("alert")
    expect(note).to_have_text("You were logged out. Log in again — your answer is kept.")
    page.locator("#composer-text").press("Enter")  # send the message too
    composer_note = page.locator("#composer [role=alert]")
    expect(composer_note).to_contain_text("You were logged out.")
    # No page was swapped into the chat.
    expect(page.locator("#main #id_username")).to_have_count(0)
    expect(page.locator("main main")).to_have_count(0)

    note.get_by_role("link", name="Log in again").click()
    page.fill("#id_username", "alice")
    page.fill("#id_password", USERS["alice"])
    page.click("button[type=submit]")
    page.wait_for_url(chat_url)
    socket_open(page)
    part = page.locator("article.part--pending").last
    expect(part.get_by_label("City")).to_have_value("Bergen")
    expect(page.locator("#composer-text")).to_have_value("and a message typed meanwhile")

    part.get_by_role("button", name="Submit").click()
    expect(page.locator("article.part").last).to_have_attribute("data-state", "submitted")
    send(page, "thanks")
    expect(page.locator(".bubble.person", has_text="thanks")).to_be_visible()
    page.reload()
    # Sent and settled: nothing comes back from the drafts.
    expect(page.locator("#composer-text")).to_have_value("")

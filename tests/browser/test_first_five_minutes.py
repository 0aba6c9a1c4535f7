"""A new person's first five minutes in a real Chromium: the first page shows the product, a
sample is one click, a conversation opens at its waiting question, times say their zone, the
token has a Copy button, and a logout in another tab shows in the header.

Every page here is looked at 375 px and 1366 px wide, light and dark (test-artifacts/), with
axe-core run on each.
"""

import re

from playwright.sync_api import Page, expect

from tests.browser.axe import look_at
from tests.browser.chat import open_chat, screenshot, send, socket_open
from tests.browser.conftest import USERS


def test_the_first_page_shows_the_product_and_a_sample_is_one_click(page: Page, live_server):
    page.set_default_timeout(30_000)
    # Logging in for the first time lands here (not in the wizard), with tries to click.
    expect(page.get_by_role("heading", name="Agents that stop and ask you")).to_be_visible()
    expect(
        page.get_by_role("button", name="Make your own agent (the setup wizard)")
    ).to_be_visible()
    look_at(page, "first-visit")

    page.get_by_role("button", name="Deploy assistant: Deploy to staging").click()
    page.wait_for_url("**/c/*/")
    question = page.locator("article.part--pending")
    expect(question).to_contain_text("Which environment should I deploy to?")
    expect(question.get_by_label("Staging")).to_be_checked()  # what the sample said
    question.get_by_role("button", name="Submit").click()

    card = page.locator("article.part--approval.part--pending")
    expect(card).to_contain_text("Deploy version main of the web app to Staging?")
    expect(card.get_by_role("button", name="Deny")).to_have_accessible_description(
        re.compile("^Deny answers no: the agent is told you refused")
    )
    expect(card.get_by_role("button", name="Cancel")).to_have_accessible_description(
        re.compile("^Cancel answers nothing")
    )
    look_at(page, "approval-card")


def test_an_empty_chat_offers_samples_that_ask_at_once(page: Page, live_server):
    open_chat(page, live_server, "Schema tester")
    samples = page.locator(".samples")
    expect(samples).to_contain_text("Try Schema tester")
    look_at(page, "samples")
    # axe leaves empty style attributes behind, which htmx's settle would copy onto a swapped
    # element (and the CSP refuses): carry on in a fresh copy of the page.
    page.reload()
    socket_open(page)

    samples.get_by_role("button", name="A multi-select: which checks to run?").click()
    question = page.locator("article.part--pending")
    expect(question).to_contain_text("Which checks should run before the release?")
    expect(question.get_by_label("Browser tests")).to_be_visible()
    expect(samples).to_be_hidden()  # the conversation has started
    expect(page.locator("#composer-text")).to_be_focused()


def test_a_conversation_opens_at_its_first_waiting_question(page: Page, live_server):
    page.set_viewport_size({"width": 375, "height": 700})
    open_chat(page, live_server, "Deploy assistant")
    send(
        page,
        "Deploy to staging, after these notes:\n" + "\n".join(f"- note {n}" for n in range(40)),
    )
    question = page.locator("article.part--pending")
    expect(question).to_contain_text("Which environment should I deploy to?")
    url = page.url

    page.goto(live_server.url + "/")
    page.goto(url)
    socket_open(page)
    expect(question).to_be_in_viewport()
    assert page.evaluate("() => window.scrollY") > 0  # the page did not open at its top
    screenshot(page, "opens-at-the-question-375")


def test_times_say_the_readers_zone_and_the_token_copies(browser, live_server):
    # bob's first login tells the server his browser's zone.
    context = browser.new_context(timezone_id="Europe/Berlin")
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(live_server.url + "/accounts/login/")
    page.fill("#id_username", "bob")
    page.fill("#id_password", USERS["bob"])
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)

    page.get_by_role("link", name="API tokens").click()
    page.get_by_label("Name").fill("deploy bot")
    page.get_by_role("button", name="Create token").click()
    token = page.get_by_label("Token", exact=True)
    expect(token).to_have_attribute("readonly", "")
    expect(token).to_have_value(re.compile("^epg_"))
    page.get_by_role("button", name="Copy token").click()
    expect(page.locator("[data-copied-for=new-token]")).to_have_text("Copied to the clipboard.")
    assert page.evaluate("() => navigator.clipboard.readText()") == token.input_value()

    row = page.locator(".token-table tbody tr", has_text="deploy bot")
    expect(row).to_contain_text(re.compile(r"\d{1,2} \w{3} \d{4}, \d{2}:\d{2} CES?T"))
    expect(page.get_by_text("Times are in your time zone, Europe/Berlin")).to_be_visible()
    look_at(page, "tokens")
    context.close()


def test_the_header_notices_a_logout_in_another_tab(page: Page, live_server):
    other = page.context.new_page()
    other.goto(live_server.url + "/settings/")
    other.get_by_role("button", name="Log out").click()
    other.wait_for_url("**/accounts/login/**")

    header = page.locator(".site-header")
    expect(header.get_by_role("status")).to_have_text("You logged out in another tab. Log in again")
    expect(header.get_by_role("button", name="Log out")).to_have_count(0)
    expect(header.get_by_role("link", name="Log in again")).to_have_attribute(
        "href", "/accounts/login/?next=%2F"
    )
    look_at(page, "header-after-logout")

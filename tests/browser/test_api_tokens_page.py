"""The API tokens page in Chromium: a new token's key is shown once, and a reload of the page
that shows it makes no second token (Post/Redirect/Get; the key is in no address)."""

import re

from playwright.sync_api import expect

from tests.browser.axe import look_at


def test_a_reload_after_creating_a_token_makes_no_second_one(page, live_server):
    page.goto(live_server.url + "/tokens/")
    page.get_by_label("Name").fill("reload bot")
    page.get_by_role("button", name="Create token").click()
    key = page.get_by_label("Token", exact=True)
    expect(key).to_have_value(re.compile("^epg_"))
    assert page.url == live_server.url + "/tokens/"
    look_at(page, "tokens-after-creation")

    page.reload()
    expect(page.get_by_role("heading", name="Your tokens")).to_be_visible()
    expect(page.locator(".token-table tbody tr", has_text="reload bot")).to_have_count(1)
    expect(key).to_have_count(0)  # shown once

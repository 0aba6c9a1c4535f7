"""On a phone the header is one row (the name, Inbox, Menu) and the Menu button opens the rest,
by mouse or keyboard; on a wide screen the links stay in the row. A table wider than its box
says that it scrolls sideways."""

import pytest
from playwright.sync_api import Page, expect

from tests.browser.axe import look_at, serious_findings

PHONE = {"width": 375, "height": 800}
WIDE = {"width": 1366, "height": 900}
# One row of 44 px controls and its padding; the four rows it took were about 145 px.
ONE_ROW = 64


@pytest.fixture(scope="module")
def long_token(live_server) -> None:
    live_server.manage(
        "shell",
        "-c",
        "from django.contrib.auth.models import User\n"
        "from playground.api.tokens import create_token\n"
        "create_token(User.objects.get(username='alice'), 'Release bot for the billing team',"
        " 'https://hooks.example.com/billing/releases/answered-questions')",
    )


def header_height(page: Page) -> float:
    return page.locator(".site-header").bounding_box()["height"]


def test_the_header_is_one_row_on_every_page_of_a_phone(page, live_server):
    page.set_viewport_size(PHONE)
    for path in ["/", "/tokens/", "/connections/", "/settings/", "/inbox/", "/workbench/"]:
        page.goto(live_server.url + path)
        assert header_height(page) <= ONE_ROW, path
        expect(page.get_by_role("link", name="Inbox")).to_be_visible()
        expect(page.get_by_role("link", name="API tokens")).to_be_hidden()
    page.get_by_role("button", name="Menu").click()  # on the workbench
    look_at(page, "header-menu-open")


def test_the_menu_opens_and_its_links_work(page, live_server):
    page.set_viewport_size(PHONE)
    menu = page.get_by_role("button", name="Menu")
    expect(menu).to_have_attribute("aria-expanded", "false")
    menu.click()
    expect(menu).to_have_attribute("aria-expanded", "true")
    for name in ["API tokens", "Connections", "Settings"]:
        expect(page.get_by_role("link", name=name, exact=True)).to_be_visible()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()
    page.get_by_role("link", name="Connections", exact=True).click()
    page.wait_for_url("**/connections/")
    # A new page starts with the menu closed, one row again.
    expect(page.get_by_role("button", name="Menu")).to_have_attribute("aria-expanded", "false")
    assert header_height(page) <= ONE_ROW
    page.get_by_role("button", name="Menu").click()
    page.get_by_role("button", name="Menu").click()
    expect(page.get_by_role("link", name="Settings")).to_be_hidden()

    # A wide screen keeps the links in the row, with no Menu button.
    page.set_viewport_size(WIDE)
    expect(page.get_by_role("button", name="Menu")).to_be_hidden()
    for name in ["Inbox", "API tokens", "Connections", "Settings"]:
        expect(page.get_by_role("link", name=name, exact=True)).to_be_visible()
    assert header_height(page) <= ONE_ROW
    assert not serious_findings(page, "connections, wide")


def test_the_menu_works_from_the_keyboard(page, live_server):
    page.set_viewport_size(PHONE)
    page.goto(live_server.url + "/settings/")
    menu = page.get_by_role("button", name="Menu")
    page.get_by_role("link", name="Inbox").focus()
    page.keyboard.press("Tab")
    expect(menu).to_be_focused()
    page.keyboard.press("Enter")
    expect(menu).to_have_attribute("aria-expanded", "true")
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="API tokens")).to_be_focused()
    page.keyboard.press("Escape")  # closes it, back on the button
    expect(menu).to_have_attribute("aria-expanded", "false")
    expect(menu).to_be_focused()
    expect(page.get_by_role("link", name="API tokens")).to_be_hidden()
    page.keyboard.press("Space")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.wait_for_url("**/tokens/")


def test_the_tokens_table_says_it_scrolls_sideways_on_a_phone(page, live_server, long_token):
    page.set_viewport_size(PHONE)
    page.goto(live_server.url + "/tokens/")
    table = page.get_by_role("region", name="Your tokens")
    hint = page.get_by_text("Scroll the table sideways to see every column.")
    expect(hint).to_be_visible()
    expect(table).to_have_accessible_description("Scroll the table sideways to see every column.")
    # The region takes the keyboard: focused, the arrow keys scroll it.
    table.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => document.querySelector('.table-wrap').scrollLeft > 0")
    look_at(page, "tokens-scroll-hint")

    page.set_viewport_size(WIDE)  # the whole table fits: no hint
    expect(hint).to_be_hidden()


def test_the_workbench_field_map_says_it_scrolls_sideways_on_a_phone(page, live_server):
    page.set_viewport_size(PHONE)
    page.goto(live_server.url + "/workbench/?example=everything_server_all_types")
    hint = page.get_by_text("Scroll the table sideways to see every column.")
    expect(hint).to_be_visible()
    assert page.locator("[aria-describedby=field-map-scroll-hint]").evaluate(
        "table => table.scrollWidth > table.clientWidth"
    )
    look_at(page, "workbench-field-map")


def test_favicon_ico_is_there(page, live_server):
    response = page.goto(live_server.url + "/favicon.ico")
    assert response.status == 200 and response.headers["content-type"] == "image/svg+xml"

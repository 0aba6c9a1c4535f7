"""A person finds their way in the docs at /docs/, logged out: from the header's link to the
home, through the navigation and previous/next, by searching, to a heading's anchor; and a
wrong address still offers the navigation and the search box. At 375 and 1366 px, light and
dark, with axe finding nothing serious."""

import pytest
from playwright.sync_api import expect

from tests.browser.axe import LOOKS, look_at
from tests.browser.conftest import refused_by_policy


@pytest.fixture
def visitor(browser):
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(30_000)
    refused = refused_by_policy(page)
    yield page
    context.close()
    assert not refused, refused


def test_the_docs_look_right_in_every_look(visitor, live_server):
    visitor.goto(live_server.url + "/docs/")
    look_at(visitor, "docs-home")
    visitor.goto(live_server.url + "/docs/agent-api/")
    look_at(visitor, "docs-agent-api")
    visitor.goto(live_server.url + "/docs/search/?q=idempotency+key")
    look_at(visitor, "docs-search")
    visitor.goto(live_server.url + "/docs/no-such-page/")
    look_at(visitor, "docs-404")


@pytest.mark.parametrize(("width", "scheme"), LOOKS)
def test_navigate_and_search_the_docs(browser, live_server, width, scheme):
    context = browser.new_context(color_scheme=scheme, viewport={"width": width, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(live_server.url + "/accounts/login/")
    page.get_by_role("link", name="Docs", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Elicitation playground")

    contents = page.get_by_role("navigation", name="Docs pages")
    contents.get_by_role("link", name="The agent API").click()
    expect(page).to_have_url(live_server.url + "/docs/agent-api/")
    expect(contents.get_by_role("link", name="The agent API")).to_have_attribute(
        "aria-current", "page"
    )
    page.get_by_role("link", name="Next The wire contract").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("The wire contract")
    page.get_by_role("link", name="Previous The agent API").click()

    # A heading's anchor is a link to it, and the address with it scrolls there.
    heading = page.locator("h2#ctxconfirmmessage--")
    heading.get_by_role("link", name="Link to this section").click()
    expect(page).to_have_url(live_server.url + "/docs/agent-api/#ctxconfirmmessage--")
    expect(heading).to_be_in_viewport()

    page.get_by_role("searchbox", name="Search the docs").fill("webhook signature")
    page.get_by_role("button", name="Search").click()
    results = page.get_by_role("list", name="Search results")
    results.get_by_role("link", name="HTTP API concepts").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("HTTP API concepts")

    response = page.goto(live_server.url + "/docs/not-a-page/")
    assert response.status == 404
    expect(page.get_by_role("heading", level=1)).to_have_text("Page not found")
    expect(page.get_by_role("searchbox", name="Search the docs")).to_be_visible()
    expect(contents.get_by_role("link", name="Quick start")).to_be_visible()
    context.close()

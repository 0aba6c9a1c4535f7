"""The parts list at a common laptop size: no sideways scrolling, every state told apart."""

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.support.admin_support import PASSWORD

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
LAPTOP = {"width": 1366, "height": 900}
STATES = {
    "pending": "Pending",
    "submitted": "Submitted",
    "declined": "Declined",
    "cancelled": "Cancelled",
    "degraded": "Degraded",
}


@pytest.fixture(scope="module")
def seeded(live_server) -> None:
    live_server.manage(
        "shell",
        "-c",
        "from tests.support.admin_support import PASSWORD, describe_in_wizard, make_staff, "
        "seed_review_data\n"
        "make_staff('admin-ada', superuser=True, password=PASSWORD)\n"
        "seed_review_data('alice', spread=True)\n"
        "describe_in_wizard('alice', 'Summarise GitHub issues every other week')\n"
        "describe_in_wizard('bob', 'Watch Zendsk for urgent tickets')\n",
    )


def admin_page(browser: Browser, live_server, scheme: str) -> Page:
    context = browser.new_context(viewport=LAPTOP, color_scheme=scheme)
    page = context.new_page()
    page.goto(live_server.url + "/admin/")
    page.fill("#id_username", "admin-ada")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.goto(live_server.url + "/admin/elicitation/part/")
    expect(page.locator("#result_list tbody tr")).to_have_count(9)
    return page


def overflow(page: Page, selector: str) -> int:
    """Return how many pixels the element is wider than its box (0: nothing to scroll)."""
    return page.eval_on_selector(selector, "el => el.scrollWidth - el.clientWidth")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_list_fits_a_laptop_screen(browser, live_server, seeded, scheme: str) -> None:
    page = admin_page(browser, live_server, scheme)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"admin-parts-1366-{scheme}.png")
    assert overflow(page, "html") == 0
    assert overflow(page, "#changelist .results") == 0
    # The last columns used to need sideways scrolling: now every header is on screen.
    for name in ("State", "Time to answer", "Answered by"):
        box = page.locator("#result_list thead th", has_text=name).first.bounding_box()
        assert box is not None and box["x"] + box["width"] <= LAPTOP["width"], name
    # Every badge is whole: as wide as its text, inside its cell.
    for badge in page.locator(".state-badge").all():
        assert badge.evaluate("el => el.scrollWidth <= el.clientWidth")
        cell = badge.evaluate("el => el.closest('td').getBoundingClientRect().right")
        assert badge.bounding_box()["x"] + badge.bounding_box()["width"] <= cell + 0.5
    page.context.close()


def test_each_state_has_its_own_colour_and_words(browser, live_server, seeded) -> None:
    page = admin_page(browser, live_server, "light")
    looks = {}
    for state, label in STATES.items():
        badge = page.locator(f".state-badge--{state}").first
        # Not colour alone: each badge names its state and has its own symbol.
        expect(badge).to_have_text(label)
        symbol = badge.evaluate("el => getComputedStyle(el, '::before').content")
        colour = badge.evaluate("el => getComputedStyle(el).backgroundColor")
        looks[state] = (symbol, colour)
    assert len({symbol for symbol, _ in looks.values()}) == len(STATES)
    assert len({colour for _, colour in looks.values()}) == len(STATES)
    page.context.close()


def test_drafts_are_one_agent_filter_entry(browser, live_server, seeded) -> None:
    page = admin_page(browser, live_server, "light")
    agents = page.locator("#changelist-filter details", has_text="By agent")
    expect(agents.get_by_role("link", name="Agent setup (drafts)")).to_have_count(1)
    expect(agents.get_by_role("link", name="Agent setup", exact=True)).to_have_count(0)
    agents.get_by_role("link", name="Agent setup (drafts)").click()
    expect(page.locator("#result_list tbody tr")).to_have_count(2)
    page.context.close()

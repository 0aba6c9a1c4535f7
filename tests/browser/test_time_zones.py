"""A date-time answer is the instant the person picked, in their zone and season, in Chromium.

Each person's browser zone is taken at login: alice in Berlin, bob in New York. It is
November on this machine's clock or not, the picked date is in July: summer time applies.
"""

import pytest
from playwright.sync_api import expect

from tests.browser.chat import ask, last_envelope, open_chat
from tests.browser.conftest import log_in

SCHEMA = {
    "type": "object",
    "properties": {
        "starts": {"type": "string", "format": "date-time", "title": "Starts"},
        "reminder": {
            "type": "string",
            "format": "date-time",
            "title": "Reminder",
            "default": "2031-07-17T07:45:30Z",
        },
    },
    "required": ["starts"],
}


@pytest.mark.parametrize(
    ("person", "zone", "sent", "chip", "default_shown"),
    [
        (
            "alice",
            "Europe/Berlin",
            "2031-07-17T09:45:00+02:00",
            "Thu 17 Jul 2031, 09:45 CEST",
            "2031-07-17T09:45:30",
        ),
        (
            "bob",
            "America/New_York",
            "2031-07-17T09:45:00-04:00",
            "Thu 17 Jul 2031, 09:45 EDT",
            "2031-07-17T03:45:30",
        ),
    ],
)
def test_a_picked_date_time_reaches_the_agent_as_that_instant(
    browser, live_server, person, zone, sent, chip, default_shown
):
    context = browser.new_context(timezone_id=zone)
    page = context.new_page()
    log_in(page, live_server, person)
    open_chat(page, live_server, "Schema tester")
    part = ask(page, "When does the window open?", SCHEMA)
    expect(part.get_by_text(f"In {zone} time.").first).to_be_visible()
    # The default is shown in the person's zone, to the second it has.
    expect(part.get_by_label("Reminder")).to_have_value(default_shown)

    part.get_by_label("Starts").fill("2031-07-17T09:45")
    part.get_by_role("button", name="Submit").click()
    page.locator(".bubble.agent", has_text="I received this envelope").wait_for()
    # An untouched default comes back as the same instant; the picked time with summer time.
    assert last_envelope(page)["content"] == {
        "starts": sent,
        "reminder": f"{default_shown}{sent[-6:]}",
    }
    when = page.locator("article.part--submitted time").first
    expect(when).to_have_text(chip)
    expect(when).to_have_attribute("datetime", sent)
    context.close()


def test_a_time_the_clocks_skip_is_refused_next_to_its_field(browser, live_server):
    context = browser.new_context(timezone_id="Europe/Berlin")
    page = context.new_page()
    log_in(page, live_server, "alice")
    open_chat(page, live_server, "Schema tester")
    part = ask(page, "When does the window open?", SCHEMA)
    part.get_by_label("Starts").fill("2031-03-30T02:30")
    part.get_by_role("button", name="Submit").click()
    expect(page.get_by_text("02:30 on 30 Mar 2031 does not exist in Europe/Berlin")).to_be_visible()
    expect(page.locator("article.part").last.get_by_label("Starts")).to_have_value(
        "2031-03-30T02:30"
    )
    context.close()

"""The tab that accepts a new agent shows its schedule panel at once (next runs, Pause, Run
now), as the agent's page does after a reload."""

import re

from playwright.sync_api import Page, expect

from tests.browser.axe import look_at
from tests.browser.test_onboarding_wizard import open_wizard, question


def test_accept_shows_the_new_agents_schedule_panel_without_a_reload(page: Page):
    open_wizard(page)
    page.get_by_role("button", name=re.compile("^Watch our Zendesk for urgent tickets")).click()
    card = question(page, "Here is the agent I will create.")
    page.evaluate("window.sameDocument = true")
    card.get_by_role("button", name="Accept").click()
    page.wait_for_url("**/agents/*/")

    panel = page.locator("#schedule-panel")
    expect(panel).to_be_visible()
    expect(panel.get_by_role("heading", name="Runs on its own")).to_be_visible()
    expect(panel).to_contain_text("every 15 minutes")
    expect(panel.get_by_role("button", name="Run now")).to_be_visible()
    assert page.evaluate("window.sameDocument") is True  # live, not a reload
    page.evaluate("window.scrollTo(0, 0)")  # the header, with its panel
    look_at(page, "accepted-agent-schedule")
    # On, or paused until it has what it lacks: either way its switch is there, and works.
    paused = panel.get_attribute("data-state") == "paused"
    switch, switched = ("Resume", "on") if paused else ("Pause", "paused")
    panel.get_by_role("button", name=switch).click()
    expect(panel).to_have_attribute("data-state", switched)

    page.reload()
    expect(page.locator("#schedule-panel")).to_have_attribute("data-state", switched)

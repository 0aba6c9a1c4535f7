"""An agent that runs on its own, in the browser: Support triage's interval becomes a schedule
whose panel appears at once (paused, since nothing here can read the platform); Pause and
Resume swap it in place; Run now opens the Runs
conversation with the run in it; the agent's page then shows that run's outcome. Screenshots
of the agent page (375 and 1366 px, light and dark) and axe on it."""

import os

from tests.browser.axe import serious_findings
from tests.browser.chat import ARTIFACTS, open_chat, screenshot, send, unstick_composer
from tests.browser.conftest import log_in
from tests.support.live_server import BASE_DIR


def test_pause_resume_and_run_now_on_the_agent_page(page, live_server):
    open_chat(page, live_server, "Support triage")
    send(page, "Watch our Zendesk for urgent tickets")
    form = page.locator("article.part--pending")
    form.get_by_role("button", name="Submit").click()
    # Nothing can read Zendesk here: the schedule is made paused, and the agent says why.
    page.locator(".bubble.agent", has_text="so I have not started the checks").wait_for()
    panel = page.locator("#schedule-panel[data-state=paused]")
    panel.wait_for()  # pushed: no reload needed
    assert "Runs every 15 minutes once resumed." in panel.inner_text()
    assert "No runs while paused." in panel.inner_text()

    page.locator("#schedule-panel").get_by_role("button", name="Resume").click()
    page.locator("#schedule-panel[data-state=on]").wait_for()
    assert page.locator("#schedule-panel .schedule-next li").count() == 3
    page.locator("#schedule-panel").get_by_role("button", name="Pause").click()
    page.locator("#schedule-panel[data-state=paused]").wait_for()
    page.locator("#schedule-panel").get_by_role("button", name="Resume").click()
    page.locator("#schedule-panel[data-state=on]").wait_for()

    page.locator("#schedule-panel").get_by_role("button", name="Run now").click()
    page.locator("h2.run-heading", has_text="Run now, ").wait_for()
    page.locator(".bubble.agent", has_text="nothing was read and nothing was flagged").wait_for()
    assert page.title().startswith("Support triage")

    page.goto(live_server.url + "/agents/support-triage/")
    last = page.locator("#schedule-panel .schedule-last")
    assert "Last run: Run now, " in last.inner_text() and ": done" in last.inner_text()
    assert serious_findings(page, "agent page with a schedule") == []
    look_at_the_agent_page(page.context.browser, live_server)


def look_at_the_agent_page(browser, live_server) -> None:
    docs = BASE_DIR / "docs/screenshots" if os.environ.get("README_SCREENSHOTS") else ARTIFACTS
    for scheme, width in (("light", 375), ("dark", 375), ("light", 1366), ("dark", 1366)):
        context = browser.new_context(color_scheme=scheme, viewport={"width": width, "height": 900})
        page = context.new_page()
        log_in(page, live_server)
        page.goto(live_server.url + "/agents/support-triage/")
        page.locator("#schedule-panel[data-state=on]").wait_for()
        unstick_composer(page)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        assert serious_findings(page, f"agent page {scheme} {width}") == []
        screenshot(page, f"schedule-{scheme}-{width}")
        if (scheme, width) == ("light", 1366):
            docs.mkdir(parents=True, exist_ok=True)
            page.locator(".chat").screenshot(path=docs / "schedule.png")
        context.close()

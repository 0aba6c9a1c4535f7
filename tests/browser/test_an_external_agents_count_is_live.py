"""An API agent's conversation counts its waiting questions live: the status line and the
tab's title go up as the agent asks over the HTTP API and down as the person answers, with no
reload (no run of ours pushes them, as a built-in agent's does)."""

import re

from playwright.sync_api import expect

from tests.browser.axe import look_at
from tests.browser.test_an_external_agent_is_live_from_its_first_word import (
    MAKE_TOKEN,
    call_api,
    open_on,
)
from tests.support.api_support import ASK

SECOND = {**ASK, "message": "Which region should I deploy to?"}


def test_the_status_line_and_title_follow_questions_asked_and_answered(live_server, page):
    key = live_server.manage("shell", "-c", MAKE_TOKEN).split()[-1]
    conversation = call_api(live_server, key, "/conversations", {"agentName": "Release bot"})
    requests = f"/conversations/{conversation['id']}/requests"
    open_on(page, conversation["url"])
    status = page.locator("#status")
    expect(page).to_have_title(re.compile(r"^Release bot"))

    call_api(live_server, key, requests, ASK)
    expect(status).to_have_text("1 question waiting for you")
    expect(page).to_have_title(re.compile(r"^\(1\) Release bot"))
    second = call_api(live_server, key, requests, SECOND)
    expect(status).to_have_text("2 questions waiting for you")
    expect(page).to_have_title(re.compile(r"^\(2\) Release bot"))
    look_at(page, "external-count-live")

    first = page.locator("article.part--pending", has_text=ASK["message"])
    first.get_by_label("Staging").check()
    first.get_by_role("button", name="Submit").click()
    expect(status).to_have_text("1 question waiting for you")
    expect(page).to_have_title(re.compile(r"^\(1\) Release bot"))

    # Cancelled by the agent over the API: the count follows too.
    call_api(live_server, key, f"/requests/{second['id']}/cancel", {})
    expect(status).to_have_text("")
    expect(page).to_have_title(re.compile(r"^Release bot"))

"""A reviewer opens past questions in the admin, in a real Chromium, and sees what people saw."""

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.support.admin_support import PASSWORD

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture(scope="module")
def parts(live_server) -> dict[str, int]:
    live_server.manage(
        "shell",
        "-c",
        "from tests.support.admin_support import PASSWORD, make_staff, seed_review_data\n"
        "make_staff('reviewer-ruth', reviewer=True, password=PASSWORD)\n"
        "parts = seed_review_data('alice', spread=True)\n"
        "print(' '.join(f'{name}={part.pk}' for name, part in parts.items()))",
    )
    rows = live_server.query("SELECT id, state, intent FROM elicitation_part ORDER BY id")
    assert {state for _, state, _ in rows} == {
        "pending",
        "submitted",
        "declined",
        "cancelled",
        "degraded",
    }
    return {"pending": max(pk for pk, state, intent in rows if state == "pending" and not intent)}


@pytest.fixture
def reviewer(browser, live_server, parts) -> Page:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.goto(live_server.url + "/admin/")
    page.fill("#id_username", "reviewer-ruth")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    expect(page.get_by_role("link", name="Elicitation overview")).to_be_visible()
    yield page
    context.close()


def test_the_detail_shows_the_question_as_the_person_saw_it(reviewer, live_server, parts):
    ARTIFACTS.mkdir(exist_ok=True)
    reviewer.goto(live_server.url + "/admin/elicitation/part/")
    expect(reviewer.locator("#result_list tbody tr")).to_have_count(7)
    reviewer.screenshot(path=ARTIFACTS / "admin-changelist.png", full_page=True)

    row = reviewer.locator("#result_list tbody tr").filter(has_text="Deploy to production")
    row.get_by_role("link", name="Which environment should I deploy to?").click()

    question = reviewer.frame_locator("iframe.chat-frame")
    expect(question.get_by_text("Which environment should I deploy to?")).to_be_visible()
    expect(question.get_by_text("Deploy assistant asks")).to_be_visible()
    # Still pending, so the form shows, but nobody can answer it from here.
    production = question.get_by_role("radio", name="Production")
    expect(production).to_be_visible()
    expect(production).to_be_disabled()
    expect(question.get_by_role("button", name="Submit")).to_be_disabled()
    # The frame grows to its content: the buttons at the bottom are inside it, not cut off.
    frame_box = reviewer.locator("iframe.chat-frame").bounding_box()
    assert frame_box["height"] > 300

    payload = reviewer.get_by_role("heading", name="Original payload (as the agent sent it)")
    expect(payload).to_be_visible()
    expect(reviewer.get_by_role("heading", name="Normalized request")).to_be_visible()
    expect(reviewer.get_by_text('"requestedSchema"')).to_be_visible()
    expect(reviewer.locator(".timeline")).to_contain_text("Shown in the chat")
    # A reviewer can look and export, not act: no cancel, no save button.
    expect(reviewer.get_by_role("button", name="Save")).to_have_count(0)
    actions = reviewer.locator("select[name$=action] option")
    expect(actions.filter(has_text="Export the selected parts as CSV")).to_have_count(1)
    expect(actions.filter(has_text="Cancel")).to_have_count(0)
    reviewer.screenshot(path=ARTIFACTS / "admin-part-detail.png", full_page=True)


def test_a_settled_part_shows_the_chip_the_chat_showed(reviewer, live_server, parts):
    reviewer.goto(live_server.url + "/admin/elicitation/part/?state__exact=submitted&intent=none")
    reviewer.locator("#result_list tbody tr").first.get_by_role("link").first.click()
    chip = reviewer.frame_locator("iframe.chat-frame").locator(".chip--submitted")
    expect(chip).to_contain_text("Environment")
    expect(chip).to_contain_text("Staging")
    expect(chip).to_contain_text("v1.4.2")
    reviewer.screenshot(path=ARTIFACTS / "admin-part-detail-submitted.png", full_page=True)


def test_the_overview_shows_counts_reasons_and_timings(reviewer, live_server, parts):
    reviewer.goto(live_server.url + "/admin/")
    reviewer.get_by_role("link", name="Elicitation overview").click()
    expect(reviewer.locator("td[data-state=pending]")).to_have_text("2")
    expect(reviewer.locator("td[data-state=degraded]")).to_have_text("2")
    expect(reviewer.locator("tr.degraded-reason")).to_have_count(2)
    expect(reviewer.locator("tr.agent-timing[data-agent='Deploy assistant']")).to_be_visible()
    reviewer.screenshot(path=ARTIFACTS / "admin-overview.png", full_page=True)

    reviewer.fill("#id_start", "2026-05-09")
    reviewer.fill("#id_end", "2026-05-01")
    reviewer.get_by_role("button", name="Show").click()
    expect(reviewer.get_by_role("alert")).to_have_text("The end date is before the start date.")


def test_a_conversation_shows_its_transcript(reviewer, live_server, parts):
    reviewer.goto(live_server.url + "/admin/playground/conversation/")
    reviewer.get_by_role("link", name="Ship v1.4.2 to staging please").click()
    transcript = reviewer.frame_locator("iframe.chat-frame")
    expect(transcript.get_by_text("Ship v1.4.2 to staging please")).to_be_visible()
    expect(transcript.locator(".chip--submitted")).to_contain_text("Staging")
    expect(transcript.get_by_role("button", name="Approve", exact=True)).to_be_disabled()
    reviewer.screenshot(path=ARTIFACTS / "admin-conversation.png", full_page=True)
    reviewer.goto(live_server.url + "/admin/")
    reviewer.screenshot(path=ARTIFACTS / "admin-index.png")

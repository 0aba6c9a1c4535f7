"""The onboarding wizard in a real Chromium: from a sentence to an agent that runs."""

import json
import re
from pathlib import Path

from playwright.sync_api import Locator, Page, expect

from tests.browser.axe import look_at, serious_findings
from tests.browser.chat import screenshot, socket_open
from tests.browser.conftest import log_in

SUBMITTED = ".part--submitted"


def open_wizard(page: Page) -> None:
    page.get_by_role("button", name="New agent").click()
    page.wait_for_url("**/c/*/")
    expect(page.get_by_role("heading", name="Create an agent")).to_be_visible()
    socket_open(page)


def describe(page: Page, text: str) -> None:
    page.get_by_label("Message to Agent setup").fill(text)
    page.keyboard.press("Enter")


def question(page: Page, message: str) -> Locator:
    """Return the pending question once it is the one asking `message`."""
    part = page.locator(".part--pending")
    expect(part.locator(".part-message")).to_contain_text(message)
    return part


def submit(part: Locator) -> None:
    part.get_by_role("button", name="Submit").click()


def test_a_description_becomes_a_working_agent(page: Page, live_server):
    open_wizard(page)
    describe(page, "Every Monday morning, email me a digest of unanswered Intercom conversations")

    # What the description implied is proposed, not assumed.
    # "Every Monday morning" says how often: only the days and the time are asked.
    schedule = question(page, "On which days of the week, and at what time, should the agent run?")
    expect(schedule).to_contain_text("I suggest every Monday at 09:00")
    expect(schedule.get_by_label("How often")).to_have_count(0)
    expect(schedule.get_by_role("checkbox", name="Monday")).to_be_checked()
    expect(schedule.get_by_role("checkbox", name="Tuesday")).not_to_be_checked()
    expect(schedule.get_by_label("Time of day")).to_have_value("09:00")
    submit(schedule)
    zone = question(page, "Which time zone should the schedule (every Monday at 09:00) follow?")
    zone.get_by_label(re.compile("^Time zone")).select_option("Europe/Paris")
    submit(zone)
    where = question(page, "Which email address should the agent send its results to?")
    expect(where.get_by_role("radio", name=re.compile("^Email"))).to_be_checked()
    where.get_by_label("Email address", exact=True).fill("ops@example.com")
    submit(where)

    card = question(page, "Here is the agent I will create.")
    expect(card).to_contain_text("Intercom unanswered-conversation digest")
    page.evaluate("window.sameDocument = true")
    card.get_by_role("button", name="Accept").click()

    # The address becomes the agent's own, in place: same document, no navigation.
    page.wait_for_url("**/agents/intercom-unanswered-conversation-digest/")
    assert page.evaluate("window.sameDocument") is True
    name = "Intercom unanswered-conversation digest"
    expect(page.get_by_role("heading", level=1)).to_have_text(name)
    expect(page).to_have_title(re.compile(f"^{name} · "))
    # No model and no Intercom server here: it says what it will do once it can, not "ready".
    expect(page.locator(".bubble.agent:not(.live)").last).to_contain_text(
        "is made, but it cannot work yet. Once it can, it will read Intercom conversations "
        "every Monday at 09:00 (Paris time) and email what it finds to ops@example.com."
    )

    page.get_by_label(f"Message to {name}").fill("Anything for me?")
    page.keyboard.press("Enter")
    # Answered by its rules, with no model and no Intercom server: it says what it lacks.
    reply = page.locator(".bubble.agent:not(.live)").last
    expect(reply).to_contain_text(
        "I'm set up to read Intercom conversations every Monday at 09:00 (Paris time)"
    )
    expect(reply).to_contain_text("but I cannot do it yet")
    expect(reply).to_contain_text("No MCP server for Intercom is declared")
    expect(reply).to_contain_text("Nothing was read or sent.")
    expect(page.locator(".part--pending")).to_have_count(0)  # nothing to answer for pretend

    page.reload()
    expect(page.get_by_role("heading", level=1)).to_have_text(name)  # the agent's own page
    expect(page.locator(".bubble.agent:not(.live)").last).to_contain_text(
        "Nothing was read or sent."
    )

    page.goto(live_server.url + "/")
    expect(page.get_by_role("button", name=f"Chat with {name}")).to_be_visible()
    with page.expect_download() as download:
        page.get_by_role("link", name="Export configuration (JSON)").click()
    exported = json.loads(Path(download.value.path()).read_text())
    assert exported["slug"] == "intercom-unanswered-conversation-digest"
    assert exported["trigger"] == {"kind": "weekly", "days": ["monday"], "time": "09:00"}
    assert exported["destination"] == {"kind": "email", "address": "ops@example.com"}


def test_a_draft_survives_a_reload_and_resumes_from_the_home_page(page: Page, live_server):
    open_wizard(page)
    describe(page, "Summarise new GitHub pull requests each evening")
    submit(
        question(page, "At what time should the agent run every day? I suggest every day at 18:00")
    )
    question(page, "Which time zone should the schedule (every day at 18:00) follow?")

    page.reload()
    zone = question(page, "Which time zone should the schedule (every day at 18:00) follow?")
    expect(page.locator(SUBMITTED)).to_have_count(1)
    expect(page.locator(SUBMITTED)).to_contain_text("18:00")

    # Leave, then come back through Drafts: the same question waits, with the same chip.
    page.goto(live_server.url + "/")
    drafts = page.locator("section", has=page.get_by_role("heading", name="Drafts"))
    drafts.get_by_role("link", name="Summarise new GitHub pull requests each evening").click()
    zone = question(page, "Which time zone should the schedule (every day at 18:00) follow?")
    expect(page.locator(SUBMITTED)).to_contain_text("18:00")
    socket_open(page)
    zone.get_by_role("button", name="Cancel").click()
    expect(page.locator(".bubble.agent:not(.live)").last).to_contain_text("I kept this as a draft")

    page.goto(live_server.url + "/")
    drafts.get_by_role("button", name=re.compile("^Delete")).click()
    expect(page.get_by_role("heading", name="Drafts")).to_have_count(0)


def test_a_full_description_goes_straight_to_the_card_and_bad_edits_stay(page: Page):
    open_wizard(page)
    page.get_by_role("button", name=re.compile("^Watch our Zendesk for urgent tickets")).click()
    card = question(page, "Here is the agent I will create.")
    expect(page.locator(".part")).to_have_count(1)  # no question was needed
    expect(card).to_contain_text("Zendesk urgent-ticket watcher")

    card.get_by_role("button", name="Edit").click()
    card.get_by_label("Schedule").select_option("daily")
    card.get_by_label("Time of day").fill("25:00")
    card.get_by_role("button", name="Save and accept").click()
    time = card.get_by_label("Time of day")
    expect(time).to_have_attribute("aria-invalid", "true")
    expect(time).to_have_value("25:00")  # what the person typed is kept
    expect(card.get_by_label("Schedule")).to_have_value("daily")
    expect(card.get_by_role("alert").first).to_be_visible()

    time.fill("07:30")
    card.get_by_role("button", name="Save and accept").click()
    expect(page.locator(".bubble.agent:not(.live)").last).to_contain_text(
        "it will read Zendesk tickets every day at 07:30 (UTC) and post what it finds in #support"
    )


def test_a_refused_edit_switched_back_shows_the_cards_time(page: Page):
    open_wizard(page)
    describe(page, "Every weekday at 9am summarise new GitHub issues in #eng-triage (Berlin time)")
    card = question(page, "Here is the agent I will create.")
    card.get_by_role("button", name="Edit").click()
    schedule = card.get_by_label("Schedule")
    schedule.select_option("every_n_minutes")
    card.get_by_label("Every how many minutes").fill("0")
    card.get_by_role("button", name="Save and accept").click()
    expect(card.get_by_label("Every how many minutes")).to_have_attribute("aria-invalid", "true")
    schedule.select_option("weekdays")  # back to what the card proposed
    expect(card.get_by_label("Time of day")).to_have_value("09:00")
    expect(card.get_by_label("Every how many minutes")).to_be_hidden()


def test_an_edit_with_an_invalid_address_stays_a_card_with_the_error(page: Page):
    open_wizard(page)
    page.get_by_role("button", name=re.compile("^Watch our Zendesk for urgent tickets")).click()
    card = question(page, "Here is the agent I will create.")
    expect(card).to_contain_text("Tools (from the platform and destination)")

    card.get_by_role("button", name="Edit").click()
    email = card.get_by_role("radio", name=re.compile(r"^Email"))
    email.check()
    card.get_by_label("Channel or address").fill("cx-daily-at-example")
    card.get_by_role("button", name="Save and accept").click()
    address = card.get_by_label("Channel or address")
    expect(address).to_have_attribute("aria-invalid", "true")
    expect(address).to_have_value("cx-daily-at-example")  # kept
    expect(card.get_by_role("radio", name=re.compile(r"^Email"))).to_be_checked()
    expect(page.locator(SUBMITTED)).to_have_count(0)  # never an "Accepted" chip
    screenshot(card, "config-card-invalid-edit")

    address.fill("cx-daily@example.com")
    card.get_by_role("button", name="Save and accept").click()
    expect(page.locator(".bubble.agent:not(.live)").last).to_contain_text("cx-daily@example.com")


ALICE_RELEASES = """
from django.contrib.auth.models import Group, User
group, _ = Group.objects.get_or_create(name="release-managers")
group.user_set.add(User.objects.get(username="alice"))
"""


def test_its_questions_go_to_a_group_and_a_name_it_may_not_ask_is_refused(page: Page, live_server):
    live_server.manage("shell", "-c", ALICE_RELEASES)
    open_wizard(page)
    describe(page, "Every weekday at 9am summarise new GitHub issues in #eng-triage (Berlin time)")
    card = question(page, "Here is the agent I will create.")
    expect(card).to_contain_text("Its questions and approvals go to")

    card.get_by_role("button", name="Edit").click()
    name = card.get_by_label("Their username, or the group's name")
    expect(name).to_be_hidden()  # they go to the owner: no name applies
    card.get_by_role("radio", name="A group").check()
    name.fill("release-manager")
    card.get_by_role("button", name="Save and accept").click()
    expect(name).to_have_attribute("aria-invalid", "true")
    expect(name).to_have_value("release-manager")  # what the person typed is kept
    expect(card.get_by_role("radio", name="A group")).to_be_checked()
    expect(card).to_contain_text('No group named "release-manager" that this agent may ask')
    expect(page.locator(SUBMITTED)).to_have_count(0)
    for width, scheme in ((375, "dark"), (1366, "light")):
        page.set_viewport_size({"width": width, "height": 900})
        page.emulate_media(color_scheme=scheme)
        name.scroll_into_view_if_needed()
        screenshot(page, f"config-card-questions-to-{width}-{scheme}")
        assert serious_findings(page, f"questions-to {width} {scheme}") == []

    name.fill("release-managers")
    card.get_by_role("button", name="Save and accept").click()
    expect(page.locator(".bubble.agent:not(.live)").last).to_contain_text("is made")
    expect(page.locator(SUBMITTED).last).to_contain_text("release-managers")


def test_a_description_that_says_nothing_gets_every_question(page: Page):
    open_wizard(page)
    describe(page, "asdf")
    expect(page.locator(".bubble.agent:not(.live)").first).to_contain_text("I could not tell")

    purpose = question(page, "What should the new agent do?")
    purpose.get_by_label("What the agent does").fill("Keep my team up to date")
    submit(purpose)
    platform = question(page, "Which platform should the agent watch for new work?")
    platform.get_by_label("Platform").select_option("zendesk")
    submit(platform)
    how_often = question(page, "How often should the agent run?")
    expect(how_often.get_by_label("Time of day")).to_have_count(0)  # asked once it applies
    how_often.get_by_label("How often").select_option("daily")
    submit(how_often)
    schedule = question(page, "At what time should the agent run every day?")
    expect(schedule.get_by_label("Every how many minutes")).to_have_count(0)
    expect(schedule.get_by_text("Days of the week")).to_have_count(0)
    schedule.get_by_label("Time of day").fill("08:30")
    submit(schedule)
    zone = question(page, "Which time zone should the schedule (every day at 08:30) follow?")
    submit(zone)
    where = question(page, "Where should the agent send its results?")
    where.get_by_role("radio", name=re.compile("^Slack channel")).check()
    where.get_by_role("textbox", name="Slack channel").fill("#team")
    submit(where)
    named = question(page, "What should this agent be called?")
    expect(named.get_by_label("Name")).to_have_value("Zendesk assistant")
    submit(named)

    card = question(page, "Here is the agent I will create.")
    expect(page.locator(SUBMITTED)).to_have_count(7)
    expect(card).to_contain_text("#team")


BERLIN = """
from django.contrib.auth.models import User
from elicitation.zones import set_zone
set_zone(User.objects.get(username="alice"), "Europe/Berlin")
"""


def test_the_schedule_questions_take_what_the_readme_says_and_an_agent_you_made_is_deleted(
    browser, live_server
):
    live_server.manage("shell", "-c", BERLIN)  # the person's zone, as Settings keeps it
    context = browser.new_context(timezone_id="Europe/Berlin")
    page = context.new_page()
    log_in(page, live_server)
    open_wizard(page)
    describe(page, "Check Freshdesk refund requests at 9am and 5pm and post them to #billing")

    # The times mentioned pre-select how often, and fill the times in.
    how_often = question(page, "How often should the agent run? You mentioned 09:00 and 17:00.")
    expect(how_often.get_by_label("How often")).to_have_value("times_a_day")
    submit(how_often)
    times = question(page, "At which times of day should the agent run?")
    expect(times.get_by_label("Times of day")).to_have_value("09:00, 17:00")
    times.get_by_label("Times of day").fill("9am and 5pm")  # as docs/onboarding.md writes them
    look_at(page, "wizard-times-of-day")
    submit(times)

    zone = question(page, "Which time zone should the schedule (every day at 09:00 and 17:00)")
    expect(zone.get_by_label(re.compile("^Time zone"))).to_have_value("Europe/Berlin")
    expect(page.locator(SUBMITTED)).to_have_count(2)  # no question asked twice
    submit(zone)
    card = question(page, "Here is the agent I will create.")
    expect(card).to_contain_text("Until then its schedule stays paused.")
    card.get_by_role("button", name="Accept").click()
    made = page.locator(".bubble.agent:not(.live)").last
    expect(made).to_contain_text(
        "Freshdesk refund checker is made, but it cannot work yet. Once it can, it will read "
        "Freshdesk tickets every day at 09:00 and 17:00 (Berlin time) and post what it finds in "
        "#billing on Slack."
    )
    expect(made).to_contain_text("Its schedule is paused until then")

    # After a reload, the wizard's questions are still its own, and its bookkeeping is hidden.
    page.reload()
    expect(page.get_by_role("heading", level=1)).to_have_text("Freshdesk refund checker")
    expect(page.locator(".asker", has_text="Agent setup asks")).to_have_count(4)  # and the card
    expect(page.locator(".asker", has_text="Freshdesk refund checker asks")).to_have_count(0)
    expect(page.get_by_text("onboarding:")).to_have_count(0)
    look_at(page, "wizard-agent-made")

    [(schedule,)] = live_server.query(
        "SELECT s.id FROM playground_schedule s JOIN playground_agent a ON a.id = s.agent_id "
        "WHERE a.slug = 'freshdesk-refund-checker' AND s.paused"
    )
    page.goto(live_server.url + "/")
    look_at(page, "home-with-made-agent")
    page.get_by_role("link", name=re.compile("^Delete Freshdesk refund checker")).click()
    expect(page.get_by_role("heading", name="Delete Freshdesk refund checker?")).to_be_visible()
    expect(page.get_by_text("stops its schedule")).to_be_visible()
    look_at(page, "delete-agent")
    page.get_by_role("button", name="Delete Freshdesk refund checker").click()
    page.wait_for_url(live_server.url + "/")
    expect(page.get_by_role("button", name="Chat with Freshdesk refund checker")).to_have_count(0)
    assert live_server.query("SELECT id FROM playground_schedule WHERE id = ?", (schedule,)) == []
    context.close()


def test_one_time_for_several_times_a_day_is_kept_not_asked_again(page: Page):
    open_wizard(page)
    describe(page, "Check Freshdesk refund requests twice a day and post them to #billing")
    times = question(page, "At which times of day should the agent run?")
    expect(times.get_by_label("Times of day")).to_have_value("09:00, 17:00")  # never empty
    times.get_by_label("Times of day").fill("17:00")
    submit(times)
    question(page, "Which time zone should the schedule (every day at 17:00) follow?")
    expect(page.locator(SUBMITTED)).to_have_count(1)  # not asked again: no trail of chips

"""How people write schedules, time zones, platforms and destinations, read without an LLM.

Each row is a fresh description, the slots it must fill (or leave empty; under "proposed", the
suggestions a question starts from), and, where the text is ambiguous or asks for something
the schedule model cannot keep, how the first question starts.
Nothing here may be rounded to a neighbouring schedule: it is filled exactly, or asked.
"""

import re
from pathlib import Path

import pytest

from playground.onboarding.extraction import extract
from playground.onboarding.questions import next_question

EVERY_OTHER_WEEK = [
    (
        "Every other Tuesday at 2pm post a recap of Help Scout conversations in #cs-leads, "
        "Paris time",
        {
            "platform": "helpscout",
            "trigger": {"kind": "every_n_weeks", "weeks": 2, "days": ["tuesday"], "time": "14:00"},
            "timezone": "Europe/Paris",
        },
        None,
    ),
    (
        "On alternate Fridays at 16:00 summarise merged GitHub pull requests in #releases (UTC)",
        {"trigger": {"kind": "every_n_weeks", "weeks": 2, "days": ["friday"], "time": "16:00"}},
        None,
    ),
    (
        "Every second Wednesday at 11am email open Zendesk tickets to leads@example.com, "
        "Sydney time",
        {
            "trigger": {
                "kind": "every_n_weeks",
                "weeks": 2,
                "days": ["wednesday"],
                "time": "11:00",
            },
            "timezone": "Australia/Sydney",
        },
        None,
    ),
    (
        "Every 3 weeks on Monday at 9:30 review stale GitHub issues and post to #eng-backlog, "
        "Berlin time",
        {"trigger": {"kind": "every_n_weeks", "weeks": 3, "days": ["monday"], "time": "09:30"}},
        None,
    ),
    (
        "Once a fortnight on Sunday evening at 7 send a Freshdesk backlog report to #weekend, UTC",
        {"trigger": {"kind": "every_n_weeks", "weeks": 2, "days": ["sunday"], "time": "19:00"}},
        None,
    ),
    (
        "Every 2 weeks on Friday at 4pm email a GitHub digest to eng@example.com",
        {"trigger": {"kind": "every_n_weeks", "weeks": 2, "days": ["friday"], "time": "16:00"}},
        "Which time zone should the schedule (every other week on Friday at 16:00) follow?",
    ),
    (
        "Run every two weeks and tell me in this chat what changed in Intercom",
        {"trigger": None, "proposed": {"trigger": {"kind": "every_n_weeks", "weeks": 2}}},
        "Every how many weeks, on which days and at what time should the agent run?",
    ),
    (
        "Bi-weekly on Mondays at 10am post Zendesk stats to #support, UTC",
        {
            "trigger": None,
            "proposed": {"trigger": {"weeks": 2, "days": ["monday"], "time": "10:00"}},
        },
        "“Biweekly” can mean every two weeks or twice a week. How often should the agent run?",
    ),
    (
        "Send a biweekly digest of GitHub issues to #eng",
        {"trigger": None},
        "“Biweekly” can mean every two weeks or twice a week.",
    ),
    (
        "Every 20 weeks check Zendesk and post to #support",
        {"trigger": None, "errors": {"trigger": "The agent can run every 2 to 12 weeks."}},
        "The agent can run every 2 to 12 weeks. Every how many weeks",
    ),
    (
        "Twice a week on Tuesday and Thursday at 9am summarise Intercom conversations in #cs, "
        "London time",
        {"trigger": {"kind": "weekly", "days": ["tuesday", "thursday"], "time": "09:00"}},
        None,
    ),
    (
        "Twice a week post a Zendesk summary to #support",
        {"trigger": None, "proposed": {"trigger": {"kind": "weekly"}}},
        "Choose the two days of the week. On which days of the week",
    ),
    (
        "Every Monday and Thursday at 9am post GitHub issues to #eng, Tokyo time",
        {"trigger": {"kind": "weekly", "days": ["monday", "thursday"], "time": "09:00"}},
        None,
    ),
]

SEVERAL_TIMES_A_DAY = [
    (
        "Check Zendesk at 9am and 4pm and post urgent tickets to #support, SF time",
        {
            "trigger": None,
            "proposed": {"trigger": {"times": ["09:00", "16:00"]}},
            "timezone": "America/Los_Angeles",
        },
        "How often should the agent run? You mentioned 09:00 and 16:00",
    ),
    (
        "At 8am, 12pm and 5pm every day post new Zendesk tickets to #support, Dublin time",
        {
            "trigger": {
                "kind": "times_a_day",
                "times": ["08:00", "12:00", "17:00"],
                "weekdays_only": False,
            }
        },
        None,
    ),
    (
        "Every weekday at 9am and 4pm summarise Intercom in #cs (CET)",
        {
            "trigger": {"kind": "times_a_day", "times": ["09:00", "16:00"], "weekdays_only": True},
            "timezone": "Europe/Berlin",
        },
        None,
    ),
    (
        "Three times a day at 08:00, 13:00 and 18:00 check Freshdesk and post to #helpdesk, "
        "Madrid time",
        {
            "trigger": {
                "kind": "times_a_day",
                "times": ["08:00", "13:00", "18:00"],
                "weekdays_only": False,
            }
        },
        None,
    ),
    (
        "Every day at 9 and 5 summarise Front conversations in #support",
        {
            "trigger": None,
            "proposed": {
                "trigger": {
                    "kind": "times_a_day",
                    "times": ["09:00", "17:00"],
                    "weekdays_only": False,
                }
            },
        },
        "At which times of day should the agent run? I suggest every day at 09:00 and 17:00",
    ),
    (
        "Twice daily summarise GitHub notifications in #eng",
        {"trigger": None, "proposed": {"trigger": {"kind": "times_a_day", "weekdays_only": False}}},
        "At which times of day should the agent run?",
    ),
    (
        "Every Monday at 9am and 5pm post GitHub issues in #eng",
        {"trigger": None},
        "I can run an agent several times a day, or once on set days, but not both.",
    ),
]

MONTHLY = [
    (
        "On the 1st of every month at 8am email a Zendesk summary to finance@example.com, "
        "New York time",
        {
            "trigger": {"kind": "monthly", "day_of_month": "1", "time": "08:00"},
            "timezone": "America/New_York",
        },
        None,
    ),
    (
        "Every month on the 28th at 17:00 summarise Intercom conversations in #cs, Tokyo time",
        {"trigger": {"kind": "monthly", "day_of_month": "28", "time": "17:00"}},
        None,
    ),
    (
        "On the first weekday of each month at 9am email a Zendesk report to ops@example.com, "
        "London time",
        {"trigger": {"kind": "monthly", "day_of_month": "first_weekday", "time": "09:00"}},
        None,
    ),
    (
        "On the last business day of each month at 4pm post the Freshdesk report to #support, "
        "Chicago time",
        {
            "trigger": {"kind": "monthly", "day_of_month": "last_weekday", "time": "16:00"},
            "timezone": "America/Chicago",
        },
        None,
    ),
    (
        "On the last day of the month at 18:00 email the GitHub release notes to "
        "team@example.com, UTC",
        {"trigger": {"kind": "monthly", "day_of_month": "last_day", "time": "18:00"}},
        None,
    ),
    *(
        (
            f"{when} at 8am email a Zendesk summary to finance@example.com, Berlin time",
            {"trigger": {"kind": "monthly", "day_of_month": "1", "time": "08:00"}},
            None,
        )
        for when in (
            "On the first day of every month",
            "The first day of each month",
            "On the first of every month",
            "On day 1 of each month",
            "On day one of every month",
            "On the 1st day of the month",
            "On the first calendar day of each month",
        )
    ),
    (
        "At the start of each month send a Help Scout summary to #cs",
        {"trigger": None, "proposed": {"trigger": {"kind": "monthly", "day_of_month": "1"}}},
        "On which day of the month, and at what time, should the agent run?",
    ),
    (
        "On the 15th post a Zendesk overview to #support",
        {"trigger": None, "proposed": {"trigger": {"day_of_month": "15"}}},
        "How often should the agent run?",
    ),
    (
        "On the 31st of every month send the Freshdesk report to #support",
        {"trigger": None, "proposed": {"trigger": {"kind": "monthly"}}},
        "Not every month has a 31st: choose the last day of the month or a day up to the 28th.",
    ),
]

CANNOT_BE_KEPT = [
    (
        "Every other day summarise Zendesk tickets in #support",
        {"trigger": None, "proposed": {"trigger": None}},
        "I can run an agent every day or on set days of the week, not every few days. How often",
    ),
    (
        "Twice a month summarise GitHub issues in #eng",
        {"trigger": None, "proposed": {"trigger": None}},
        "I can run an agent once a month or every few weeks, not twice a month.",
    ),
    (
        "Quarterly, email a summary of Zendesk tickets to me@example.com",
        {"trigger": None, "proposed": {"trigger": None}},
        "I can run an agent at most a month apart, not once a quarter or a year.",
    ),
    (
        "The second Tuesday of every month, post GitHub stats in #eng",
        {"trigger": None},
        "I can run an agent on a day of the month, or its first or last weekday, but not on a "
        "given weekday of the month.",
    ),
]

TIME_ZONES = [
    (
        "Every weekday at 9am summarise Zendesk tickets in #support, SF time",
        {"timezone": "America/Los_Angeles"},
        None,
    ),
    (
        "Every day at 10am post Intercom conversations in #cs, NY time",
        {"timezone": "America/New_York"},
        None,
    ),
    (
        "Every other Monday at 10am post a summary of Zendesk tickets to #support, NYC",
        {"timezone": "America/New_York"},
        None,
    ),
    (
        "Every Friday at 3pm post a GitHub digest to #eng, Mexico City time",
        {"timezone": "America/Mexico_City"},
        None,
    ),
    (
        "Every weekday at 8:30 check Freshdesk and post to #support, time zone: Lagos",
        {"timezone": "Africa/Lagos"},
        None,
    ),
    (
        "Every morning at 9 summarise Zendesk in #support, Europe/Vienna",
        {"timezone": "Europe/Vienna"},
        None,
    ),
    (
        "Every weekday at 9am Vancouver time summarise GitHub issues in #eng",
        {"timezone": "America/Vancouver"},
        None,
    ),
    (
        "Every day at 9am IST post Freshdesk tickets to #support",
        {
            "timezone": None,
            "timezone_candidates": ["Asia/Kolkata", "Europe/Dublin", "Asia/Jerusalem"],
        },
        "The time zone you named can mean India, Dublin or Israel time. Which time zone",
    ),
    (
        "Every day at noon post GitHub issues to #eng, Mars time",
        {"timezone": None, "timezone_candidates": []},
        "Which time zone should the schedule (every day at 12:00) follow?",
    ),
    (
        "Check the Phoenix project on GitHub every weekday at 9am and post to #eng",
        {"timezone": None},
        "Which time zone should the schedule (every weekday at 09:00) follow?",
    ),
]

PLATFORM_TYPOS = [
    (
        "Every hour check Zendeks and post urgent tickets to #support",
        {
            "platform": None,
            "proposed": {"platform": "zendesk", "name": "Zendesk urgent-ticket checker"},
        },
        "I don't know “Zendeks”. Did you mean Zendesk? Which platform",
    ),
    (
        "Summarise Freshdsk tickets every 30 minutes in #support",
        {"platform": None, "name": None},
        "I don't know “Freshdsk”. Did you mean Freshdesk?",
    ),
    (
        "Check Intercomm every 15 minutes and post to #cs",
        {"platform": None, "proposed": {"platform": "intercom", "name": "Intercom checker"}},
        "I don't know “Intercomm”. Did you mean Intercom?",
    ),
    (
        "Summarise Github and Slak messages every hour in #eng",
        {"platform": "github", "platform_candidates": []},
        None,
    ),
    (
        "Every hour check the stack of tickets and post to #support",
        {"platform": None, "proposed": {"platform": None}},
        "Which platform should the agent watch for new work?",
    ),
]

DESTINATIONS = [
    (
        "Every hour summarise Zendesk tickets and send me a Slack DM",
        {"platform": "zendesk", "destination": {"kind": "slack_dm"}},
        None,
    ),
    (
        "Every hour summarise Zendesk tickets and DM me",
        {"destination": None, "proposed": {"destination": {"kind": "slack_dm"}}},
        "Where should the agent send its results?",
    ),
    (
        "Send urgent Intercom conversations as a direct message in Slack every 10 minutes",
        {"platform": "intercom", "destination": {"kind": "slack_dm"}},
        None,
    ),
    (
        "Watch our Slack DMs every hour and post a summary to #inbox",
        {"platform": "slack", "destination": {"kind": "slack", "channel": "#inbox"}},
        None,
    ),
    (
        "Every 30 minutes check Zendesk and post it here in the chat",
        {"destination": {"kind": "chat"}},
        None,
    ),
    (
        "Every hour summarise GitHub issues and report back right here",
        {"destination": {"kind": "chat"}},
        None,
    ),
    (
        "Watch Freshdesk every 15 minutes and send updates to this chat",
        {"destination": {"kind": "chat"}},
        None,
    ),
    (
        "Here is what I need: watch Zendesk every hour and post to #support",
        {"destination": {"kind": "slack", "channel": "#support"}},
        None,
    ),
]

CASES = (
    EVERY_OTHER_WEEK
    + SEVERAL_TIMES_A_DAY
    + MONTHLY
    + CANNOT_BE_KEPT
    + TIME_ZONES
    + PLATFORM_TYPOS
    + DESTINATIONS
)


@pytest.mark.parametrize(("description", "expected", "asks"), CASES)
def test_it_reads_how_people_write(description: str, expected: dict, asks: str | None) -> None:
    draft = extract(description)
    found = draft.to_dict()
    proposed = expected.get("proposed", {})
    assert {slot: found["proposed"].get(slot) for slot in proposed} == proposed
    slots = {slot: value for slot, value in expected.items() if slot != "proposed"}
    assert {slot: found[slot] for slot in slots} == slots
    question = next_question(draft)
    if asks is None:
        assert question is None or question["slot"] not in expected
    else:
        assert question is not None
        assert question["payload"]["message"].startswith(asks)


def test_it_covers_at_least_forty_fresh_descriptions() -> None:
    assert len({description for description, _, _ in CASES}) >= 40


# --- The docs' own words --------------------------------------------------------------------
# Each phrase of docs/onboarding.md's "What it understands" table, in a description, and what
# it is read as; then each phrase of "What it cannot keep", and the reason its question starts
# with. The keys must be the page's phrases exactly, so the page and the wizard cannot drift
# apart.

README = Path(__file__).resolve().parent.parent / "docs" / "onboarding.md"
ZENDESK = "Summarise Zendesk tickets {} in #support"
SCHEDULED = "Every day at 9am summarise Zendesk tickets in #support, {}"
HOURLY = "Every hour summarise Zendesk tickets and {}"

UNDERSTOOD = {
    "every 15 minutes": (ZENDESK, {"trigger": {"kind": "every_n_minutes", "minutes": 15}}),
    "hourly": (ZENDESK, {"trigger": {"kind": "hourly"}}),
    "every 2 hours": (ZENDESK, {"trigger": {"kind": "every_n_minutes", "minutes": 120}}),
    "every day at 9am": (ZENDESK, {"trigger": {"kind": "daily", "time": "09:00"}}),
    "weekdays at 8:30": (ZENDESK, {"trigger": {"kind": "weekdays", "time": "08:30"}}),
    "every Monday and Thursday at 9": (
        ZENDESK,
        {"trigger": {"kind": "weekly", "days": ["monday", "thursday"], "time": "09:00"}},
    ),
    "on weekends at 10am": (
        ZENDESK,
        {"trigger": {"kind": "weekly", "days": ["saturday", "sunday"], "time": "10:00"}},
    ),
    "at 9am and 4pm every day": (
        ZENDESK,
        {"trigger": {"kind": "times_a_day", "times": ["09:00", "16:00"], "weekdays_only": False}},
    ),
    "three times a day at 8, 13:00 and 18:00": (
        ZENDESK,
        {
            "trigger": {
                "kind": "times_a_day",
                "times": ["08:00", "13:00", "18:00"],
                "weekdays_only": False,
            }
        },
    ),
    # Days or weeks said, the time not: the follow-up starts from them.
    "every other Monday": (
        ZENDESK,
        {"proposed": {"trigger": {"kind": "every_n_weeks", "weeks": 2, "days": ["monday"]}}},
    ),
    "every 3 weeks on Friday": (
        ZENDESK,
        {"proposed": {"trigger": {"kind": "every_n_weeks", "weeks": 3, "days": ["friday"]}}},
    ),
    "fortnightly": (ZENDESK, {"proposed": {"trigger": {"kind": "every_n_weeks", "weeks": 2}}}),
    "on the 15th of each month": (
        ZENDESK,
        {"proposed": {"trigger": {"kind": "monthly", "day_of_month": "15"}}},
    ),
    "the first day of every month": (
        ZENDESK,
        {"proposed": {"trigger": {"kind": "monthly", "day_of_month": "1"}}},
    ),
    "first weekday of the month": (
        ZENDESK,
        {"proposed": {"trigger": {"kind": "monthly", "day_of_month": "first_weekday"}}},
    ),
    "last day of the month": (
        ZENDESK,
        {"proposed": {"trigger": {"kind": "monthly", "day_of_month": "last_day"}}},
    ),
    "when I ask": (ZENDESK, {"trigger": {"kind": "on_demand"}}),
    "on demand": (ZENDESK, {"trigger": {"kind": "on_demand"}}),
    "Berlin time": (SCHEDULED, {"timezone": "Europe/Berlin"}),
    "CET": (SCHEDULED, {"timezone": "Europe/Berlin"}),
    "NY": (SCHEDULED, {"timezone": "America/New_York"}),
    "SF": (SCHEDULED, {"timezone": "America/Los_Angeles"}),
    "Vancouver time": (SCHEDULED, {"timezone": "America/Vancouver"}),
    "America/Toronto": (SCHEDULED, {"timezone": "America/Toronto"}),
    "Zendsk": (
        "Every hour check {} and post urgent tickets to #support",
        {"proposed": {"platform": "zendesk"}},
    ),
    "Intercomm": (
        "Every hour check {} and post new conversations to #support",
        {"proposed": {"platform": "intercom"}},
    ),
    "#support": (
        "Every hour summarise Zendesk tickets in {}",
        {"destination": {"kind": "slack", "channel": "#support"}},
    ),
    "email ops@example.com": (
        HOURLY,
        {"destination": {"kind": "email", "address": "ops@example.com"}},
    ),
    "DM me": (HOURLY, {"proposed": {"destination": {"kind": "slack_dm"}}}),
    "a Slack DM": (
        "Every hour summarise Zendesk tickets and send me {}",
        {"destination": {"kind": "slack_dm"}},
    ),
    "post it here": (HOURLY, {"destination": {"kind": "chat"}}),
}

ASKED_WITH_A_REASON = {
    "biweekly": (ZENDESK, "“Biweekly” can mean every two weeks or twice a week."),
    "IST": (
        "Every day at 9am {} summarise Zendesk tickets in #support",
        "The time zone you named can mean India, Dublin or Israel time.",
    ),
    "the 31st": ("Summarise Zendesk tickets on {} in #support", "Not every month has a 31st"),
    "every 31st of February": (ZENDESK, "There is no 31st of February"),
    "every other day": (ZENDESK, "I can run an agent every day or on set days of the week"),
    "the first Monday of the month": (
        "Summarise Zendesk tickets on {} in #support",
        "I can run an agent on a day of the month, or its first or last weekday, but not on a "
        "given weekday of the month.",
    ),
    "twice a month": (ZENDESK, "I can run an agent once a month or every few weeks"),
    "quarterly": (ZENDESK, "I can run an agent at most a month apart"),
    "at 25:00": ("Summarise Zendesk tickets every day {} in #support", "“25:00” is not a time"),
    "every 30 seconds": (ZENDESK, "The agent can run every 5 to 1440 minutes, not seconds apart"),
}


def readme_section(start: str, end: str) -> str:
    text = README.read_text()
    return text[text.index(start) : text.index(end, text.index(start))]


def table_phrases() -> list[str]:
    rows = readme_section("| you write | it reads |", "\n\n").splitlines()[2:]
    return [phrase for row in rows for phrase in re.findall(r'"([^"]+)"', row.split(" | ")[0])]


def test_the_readme_table_and_the_wizard_name_the_same_phrases() -> None:
    assert sorted(table_phrases()) == sorted(UNDERSTOOD)
    cannot = readme_section("What it cannot keep is asked", "The schedule is asked")
    assert sorted(re.findall(r'"([^"]+)"', cannot)) == sorted(ASKED_WITH_A_REASON)


@pytest.mark.parametrize("phrase", UNDERSTOOD)
def test_every_phrase_of_the_readme_table_is_understood(phrase: str) -> None:
    description, expected = UNDERSTOOD[phrase]
    found = extract(description.format(phrase)).to_dict()
    proposed = expected.get("proposed", {})
    assert {slot: found["proposed"].get(slot) for slot in proposed} == proposed
    slots = {slot: value for slot, value in expected.items() if slot != "proposed"}
    assert {slot: found[slot] for slot in slots} == slots
    read = {*slots, *proposed}
    assert not read & set(found["errors"]) or proposed.get("platform")  # a typo says "Did you mean"


@pytest.mark.parametrize("phrase", ASKED_WITH_A_REASON)
def test_what_the_readme_says_it_cannot_keep_is_asked_with_the_reason(phrase: str) -> None:
    description, reason = ASKED_WITH_A_REASON[phrase]
    question = next_question(extract(description.format(phrase)))
    assert question is not None and question["slot"] in ("trigger", "timezone")
    assert question["payload"]["message"].startswith(reason)

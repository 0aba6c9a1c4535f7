"""Extraction of an agent draft from a free-text description, with no LLM involved."""

import json
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playground.onboarding import catalog
from playground.onboarding.extraction import (
    MAX_DESCRIPTION_CHARS,
    SLOT_ORDER,
    AgentDraft,
    extract,
)
from playground.onboarding.schedules import parse_time
from playground.onboarding.time_zones import find_timezone

EVERYTHING_MISSING = list(SLOT_ORDER)

CASES = [
    (
        "watch our Zendesk for urgent tickets every 15 minutes and post a summary to #support",
        {
            "name": "Zendesk urgent-ticket watcher",
            "purpose": "Watch our Zendesk for urgent tickets every 15 minutes and post a summary "
            "to #support.",
            "platform": "zendesk",
            "trigger": {"kind": "every_n_minutes", "minutes": 15},
            "timezone": None,
            "destination": {"kind": "slack", "channel": "#support"},
            "tools": ["request_input", "read_tickets", "post_message"],
            "missing": [],
        },
    ),
    (
        "Every weekday at 9am summarise new GitHub issues in #eng-triage (Berlin time)",
        {
            "name": "GitHub issue digest",
            "platform": "github",
            "trigger": {"kind": "weekdays", "time": "09:00"},
            "timezone": "Europe/Berlin",
            "destination": {"kind": "slack", "channel": "#eng-triage"},
            "missing": [],
        },
    ),
    ("help", {"name": None, "purpose": None, "missing": EVERYTHING_MISSING, "proposed": {}}),
    ("", {"purpose": None, "platform": None, "missing": EVERYTHING_MISSING}),
    ("   \n\t  ", {"purpose": None, "missing": EVERYTHING_MISSING}),
    ("asdf qwerty", {"name": None, "purpose": None, "missing": EVERYTHING_MISSING}),
    (
        "Check Zendesk or Intercom for unanswered conversations every hour and email "
        "ops@example.com",
        {
            "platform": None,
            "platform_candidates": ["zendesk", "intercom"],
            "trigger": {"kind": "hourly"},
            "destination": {"kind": "email", "address": "ops@example.com"},
            "missing": ["platform"],
        },
    ),
    (
        "Zendesk or Freshdesk, I haven't decided yet",
        {"platform": None, "platform_candidates": ["zendesk", "freshdesk"]},
    ),
    (
        "Each morning at 9 send me a digest of new Help Scout conversations by email",
        {
            "platform": "helpscout",
            "trigger": {"kind": "daily", "time": "09:00"},
            "destination": None,
            "proposed": {"destination": {"kind": "email"}},
            "missing": ["timezone", "destination"],
        },
    ),
    (
        "every Monday at 8:30 post a report of stale pull requests to #eng",
        {
            "platform": "github",
            "trigger": {"kind": "weekly", "days": ["monday"], "time": "08:30"},
            "destination": {"kind": "slack", "channel": "#eng"},
            "missing": ["timezone"],
        },
    ),
    (
        "Watch the #general Slack channel and reply here when someone mentions outages, every "
        "half hour",
        {
            "platform": "slack",
            "trigger": {"kind": "every_n_minutes", "minutes": 30},
            "destination": {"kind": "chat"},
            "missing": [],
        },
    ),
    (
        "Daily at 9:15 pm summarize Freshdesk tickets and post them to #support",
        {"platform": "freshdesk", "trigger": {"kind": "daily", "time": "21:15"}},
    ),
    (
        "every day at noon check our Front inbox and send it to #cs-team, Pacific time",
        {
            "platform": "front",
            "trigger": {"kind": "daily", "time": "12:00"},
            "timezone": "America/Los_Angeles",
            "destination": {"kind": "slack", "channel": "#cs-team"},
        },
    ),
    (
        "Remind me every 2 hours",
        {
            "trigger": {"kind": "every_n_minutes", "minutes": 120},
            "name": None,
            "proposed": {"name": "Reminder"},
        },
    ),
    (
        "Every evening at 7 email a recap of the Gmail inbox to boss@corp.io",
        {
            "platform": "email",
            "trigger": {"kind": "daily", "time": "19:00"},
            "destination": {"kind": "email", "address": "boss@corp.io"},
            "tools": ["request_input", "read_emails", "send_email"],
        },
    ),
    (
        "When I ask, draft replies to unassigned Freshdesk tickets and tell me here",
        {
            "name": "Freshdesk unassigned-ticket responder",
            "platform": "freshdesk",
            "trigger": {"kind": "on_demand"},
            "destination": {"kind": "chat"},
            "missing": [],
        },
    ),
    (
        "Send me a summary of our Intercom conversations at 17:30 CET",
        {
            "platform": "intercom",
            "trigger": None,
            "proposed": {"trigger": {"time": "17:30"}},
            "timezone": "Europe/Berlin",
            "missing": ["trigger", "destination"],
        },
    ),
    (
        "once a week send a digest of urgent emails to #ops",
        {
            "platform": "email",
            "trigger": None,
            "proposed": {"trigger": {"kind": "weekly"}},
            "missing": ["trigger", "timezone"],
        },
    ),
    (
        "Every day, look at Zendesk and post anything odd to #support",
        {
            "trigger": None,
            "proposed": {
                "trigger": {"kind": "daily"},
                "name": "Zendesk assistant",
            },
        },
    ),
    (
        "every minute check zendesk",
        {
            "trigger": None,
            "proposed": {"trigger": {"kind": "every_n_minutes", "minutes": 5}},
            "errors": {"trigger": "The agent can run every 5 to 1440 minutes."},
        },
    ),
    (
        "Post to Slack #eng every hour with open GitHub PRs",
        {
            "platform": "github",
            "trigger": {"kind": "hourly"},
            "destination": {"kind": "slack", "channel": "#eng"},
        },
    ),
    (
        "We're in front of a big launch; watch Zendesk hourly",
        {"platform": "zendesk", "platform_candidates": [], "trigger": {"kind": "hourly"}},
    ),
    (
        "On demand, triage Zendesk tickets and leave a comment on the GitHub issue",
        {
            "platform": "zendesk",
            "trigger": {"kind": "on_demand"},
            "destination": {"kind": "github_comment"},
            "tools": ["request_input", "read_tickets", "comment_on_issue"],
        },
    ),
    (
        "Every Friday at 4pm summarise the #general Slack channel and email me",
        {
            "platform": "slack",
            "trigger": {"kind": "weekly", "days": ["friday"], "time": "16:00"},
            "destination": None,
            "proposed": {"destination": {"kind": "email"}},
        },
    ),
    (
        "Every weekday at 8 check Freshdesk, London time",
        {"trigger": {"kind": "weekdays", "time": "08:00"}, "timezone": "Europe/London"},
    ),
    (
        "Check GitHub every quarter hour and ping #eng; we work 9am ET",
        {"trigger": {"kind": "every_n_minutes", "minutes": 15}, "timezone": "America/New_York"},
    ),
    (
        "Watch Zendesk at midnight Tokyo time and post to #jp-support",
        {
            "trigger": None,
            "proposed": {"trigger": {"time": "00:00"}},
            "timezone": "Asia/Tokyo",
        },
    ),
    (
        "Summarise GitHub pull requests every weekday at 17:30 UTC in #eng",
        {"trigger": {"kind": "weekdays", "time": "17:30"}, "timezone": "UTC"},
    ),
    (
        "Watch Zendesk every 10 minutes, API token: zd9f8e7d6c5b4a39281716ff, post to #support",
        {
            "redacted": True,
            "platform": "zendesk",
            "trigger": {"kind": "every_n_minutes", "minutes": 10},
            "purpose": "Watch Zendesk every 10 minutes, API token: [redacted], post to #support.",
        },
    ),
    (
        "Überwache Zendesk 🚀 — every day at 08:00 UTC post to #support-de",
        {"platform": "zendesk", "trigger": {"kind": "daily", "time": "08:00"}, "timezone": "UTC"},
    ),
]


@pytest.mark.parametrize(("description", "expected"), CASES)
def test_it_extracts_slots(description: str, expected: dict) -> None:
    draft = extract(description).to_dict()
    assert {slot: draft[slot] for slot in expected} == expected


def test_it_covers_at_least_twenty_descriptions() -> None:
    assert len(CASES) >= 20


def test_nonsense_fills_nothing() -> None:
    draft = extract("asdf qwerty zxcv")
    assert draft.platform is None and draft.trigger is None and draft.destination is None
    assert draft.missing == EVERYTHING_MISSING
    assert draft.tools == ["request_input"]


def test_a_timed_schedule_without_a_zone_asks_for_one() -> None:
    draft = extract("Every weekday at 9am summarise GitHub issues in #eng")
    assert draft.missing == ["timezone"]


def test_an_interval_schedule_does_not_ask_for_a_zone() -> None:
    draft = extract("Watch Zendesk every 30 minutes and post to #support")
    assert "timezone" not in draft.missing


def test_it_round_trips_through_json() -> None:
    draft = extract("Each morning summarise Zendesk or Intercom tickets and email me")
    data = json.loads(json.dumps(draft.to_dict()))
    assert AgentDraft.from_dict(data) == draft


def test_from_dict_ignores_unknown_keys_and_keeps_request_input() -> None:
    draft = AgentDraft.from_dict({"platform": "github", "tools": ["read_issues"], "extra": 1})
    assert draft.platform == "github"
    assert draft.tools == ["request_input", "read_issues"]


def test_to_dict_is_a_copy() -> None:
    draft = extract("Watch Zendesk every 15 minutes and post to #support")
    draft.to_dict()["trigger"]["minutes"] = 99
    assert draft.trigger == {"kind": "every_n_minutes", "minutes": 15}


def test_it_truncates_very_long_descriptions() -> None:
    draft = extract("Watch Zendesk for urgent tickets every 15 minutes. " * 2_000)
    assert draft.platform == "zendesk"
    assert len(draft.instructions or "") < MAX_DESCRIPTION_CHARS
    assert len(draft.purpose or "") <= 200


def test_it_redacts_a_secret_straddling_the_truncation_point() -> None:
    secret = "ghp_" + "A1" * 20
    draft = extract("Watch Zendesk hourly. " + "x " * 4_985 + secret + " and more")
    assert "ghp_" not in (draft.instructions or "")
    assert "A1A1" not in json.dumps(draft.to_dict())
    assert draft.redacted


def test_it_survives_a_huge_input() -> None:
    draft = extract("a" * 1_000_000)
    assert draft.missing == EVERYTHING_MISSING


VOCABULARY = [
    "watch",
    "Zendesk",
    "Intercom",
    "every",
    "15",
    "minutes",
    "at",
    "9am",
    "17:30",
    "noon",
    "#support",
    "ops@example.com",
    "email",
    "me",
    "Monday",
    "weekdays",
    "daily",
    "Berlin",
    "ET",
    "password:",
    "token",
    "Front",
    "inbox",
    "slack",
    "to",
    "in",
    "and",
    ",",
    ".",
    "é",
    "🚀",
    "\x00",
    "other",
    "biweekly",
    "fortnightly",
    "weeks",
    "twice",
    "a",
    "day",
    "month",
    "the",
    "15th",
    "31st",
    "first",
    "weekday",
    "of",
    "IST",
    "NY",
    "Vancouver",
    "time",
    "Zendsk",
    "DM",
    "here",
]


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=400), st.lists(st.sampled_from(VOCABULARY)).map(" ".join)))
def test_it_never_raises(description: str) -> None:
    draft = extract(description)
    json.dumps(draft.to_dict())
    assert "request_input" in draft.tools
    assert draft.platform is None or catalog.find(catalog.PLATFORMS, draft.platform)
    assert draft.timezone is None or catalog.is_timezone(draft.timezone)
    assert set(draft.missing) <= set(SLOT_ORDER)


@pytest.mark.parametrize("value", [None, 42, b"bytes"])
def test_it_treats_non_text_as_empty(value: object) -> None:
    assert extract(value).missing == EVERYTHING_MISSING  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("at 17:30", "17:30"),
        ("9:15 pm", "21:15"),
        ("daily at 9am", "09:00"),
        ("at 9 a.m.", "09:00"),
        ("12am", "00:00"),
        ("12pm", "12:00"),
        ("noon", "12:00"),
        ("midnight", "00:00"),
        ("each morning at 9", "09:00"),
        ("every evening at 7", "19:00"),
        ("weekdays at 8", "08:00"),
        ("at 7 o'clock", "07:00"),
        ("every 15 minutes", None),
        ("at 25:00", None),
        ("version 3.14", None),
        ("", None),
    ],
)
def test_it_parses_times(text: str, expected: str | None) -> None:
    assert parse_time(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("9am UTC", "UTC"),
        ("CET", "Europe/Berlin"),
        ("Berlin time", "Europe/Berlin"),
        ("9am Pacific", "America/Los_Angeles"),
        ("5pm ET", "America/New_York"),
        ("US Eastern", "America/New_York"),
        ("London", "Europe/London"),
        ("Tokyo", "Asia/Tokyo"),
        ("Asia/Singapore", "Asia/Singapore"),
        ("et cetera", None),
        ("Eastern Europe", None),
        ("our central dashboard", None),
    ],
)
def test_it_recognises_time_zones(text: str, expected: str | None) -> None:
    assert find_timezone(text) == expected


def test_catalog_time_zones_are_valid_and_curated() -> None:
    values = catalog.values(catalog.TIMEZONES)
    assert 20 <= len(values) <= 30
    assert len(set(values)) == len(values)
    for value in values:
        ZoneInfo(value)
        assert catalog.is_timezone(value)
    assert not catalog.is_timezone("Mars/Olympus_Mons")


def test_catalog_tools_always_include_request_input() -> None:
    assert catalog.tools_for(None, None) == ["request_input"]
    assert catalog.tools_for("zendesk", "slack") == [
        "request_input",
        "read_tickets",
        "post_message",
    ]
    known = set(catalog.values(catalog.TOOLS))
    for option in (*catalog.PLATFORMS, *catalog.DESTINATIONS):
        assert set(option.tools) <= known

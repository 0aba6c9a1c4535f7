"""The onboarding wizard's questions, answers and final configuration form."""

import re
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from elicitation.widgets import CHECKBOX_LIMIT
from playground.onboarding import catalog
from playground.onboarding.extraction import SLOT_ORDER, AgentDraft, extract
from playground.onboarding.questions import (
    ConfigFormError,
    apply_answer,
    config_schema,
    config_to_form_values,
    draft_to_config,
    form_values_to_config,
    next_question,
)

SECRET_LOOKING = re.compile(
    r"pass(word|phrase)?|token|api.?key|secret|credential|private.?key|access.?key|\bkey\b", re.I
)
PROPERTY_KEYS = {
    "type",
    "title",
    "description",
    "default",
    "oneOf",
    "enum",
    "items",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "x-ui",
}
FORMATS = {"date", "date-time", "email", "uri", "multiline"}


def assert_flat(schema: dict[str, Any]) -> None:
    """Fail unless the schema is in the playground's flat request_input dialect."""
    assert schema["type"] == "object"
    assert set(schema) <= {"type", "properties", "required", "title", "description"}
    properties = schema["properties"]
    assert set(schema.get("required", [])) <= set(properties)
    for name, field in properties.items():
        assert not SECRET_LOOKING.search(name), name
        assert not SECRET_LOOKING.search(field.get("title", "")), name
        assert set(field) <= PROPERTY_KEYS, name
        assert field.get("format", "multiline") in FORMATS
        assert set(field.get("x-ui", {})) <= {"widget", "placeholder"}
        for option in field.get("oneOf", []):
            assert {"const", "title"} <= set(option) <= {"const", "title", "description"}
        if field["type"] == "array":
            assert set(field["items"]) == {"anyOf"}
            for option in field["items"]["anyOf"]:
                assert set(option) == {"const", "title"} and isinstance(option["const"], str)
        else:
            assert field["type"] in {"string", "number", "integer", "boolean"}
    defaults = {name: field["default"] for name, field in properties.items() if "default" in field}
    assert_valid(schema, defaults, required=False)


def assert_valid(schema: dict[str, Any], content: dict[str, Any], required: bool = True) -> None:
    """Fail unless the content is a valid answer to the schema, as the server would check it."""
    if not required:
        schema = {key: value for key, value in schema.items() if key != "required"}
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    assert not list(validator.iter_errors(content))


def question_for(draft: AgentDraft, slot: str) -> dict[str, Any]:
    question = next_question(AgentDraft.from_dict({**draft.to_dict(), "missing": [slot]}))
    assert question is not None and question["slot"] == slot
    return question["payload"]


def answer(draft: AgentDraft, slot: str, content: dict[str, Any]) -> AgentDraft:
    """Apply an answer after checking it is one the question's form would accept."""
    assert_valid(question_for(draft, slot)["requestedSchema"], content)
    return apply_answer(draft, slot, content)


@pytest.mark.parametrize("slot", SLOT_ORDER)
@pytest.mark.parametrize("description", ["", "Each morning summarise Zendesk or Intercom tickets"])
def test_every_question_is_in_the_flat_dialect(description: str, slot: str) -> None:
    payload = question_for(extract(description), slot)
    assert "?" in payload["message"]
    assert "input required" not in payload["message"].lower()
    assert_flat(payload["requestedSchema"])


def test_it_asks_nothing_when_the_draft_is_complete() -> None:
    draft = extract("Watch Zendesk for urgent tickets every 15 minutes and post to #support")
    assert next_question(draft) is None


def test_it_asks_about_the_first_missing_slot() -> None:
    question = next_question(extract("help"))
    assert question is not None
    assert question["slot"] == "purpose"
    assert question["payload"]["message"].startswith("What should the new agent do?")


def test_ambiguous_platforms_come_first_with_the_first_as_default() -> None:
    draft = extract("Check Zendesk or Intercom every hour and email ops@example.com")
    question = next_question(draft)
    assert question is not None and question["slot"] == "platform"
    field = question["payload"]["requestedSchema"]["properties"]["platform"]
    assert question["payload"]["message"] == (
        "You mentioned Zendesk and Intercom. Which one should the agent watch?"
    )
    assert [option["const"] for option in field["oneOf"][:2]] == ["zendesk", "intercom"]
    assert field["default"] == "zendesk"
    assert all(option["description"] for option in field["oneOf"])


def test_how_often_is_asked_first_when_the_description_does_not_say() -> None:
    payload = question_for(extract("Watch Zendesk at 17:30 and post to #support"), "trigger")
    fields = payload["requestedSchema"]["properties"]
    assert list(fields) == ["kind"]
    assert [option["const"] for option in fields["kind"]["oneOf"]] == catalog.values(
        catalog.TRIGGERS
    )
    assert payload["message"].startswith("How often should the agent run? You mentioned 17:30")


FOLLOW_UP_FIELDS = [
    ("every_n_minutes", ["minutes"]),
    ("daily", ["time"]),
    ("weekdays", ["time"]),
    ("times_a_day", ["times", "weekdays_only"]),
    ("weekly", ["days", "time"]),
    ("every_n_weeks", ["weeks", "days", "time"]),
    ("monthly", ["day_of_month", "time"]),
]


@pytest.mark.parametrize(("kind", "shown"), FOLLOW_UP_FIELDS)
def test_the_follow_up_shows_only_what_the_chosen_schedule_needs(kind: str, shown: list) -> None:
    draft = apply_answer(extract("help"), "trigger", {"kind": kind})
    assert draft.trigger is None and "trigger" not in draft.errors
    payload = question_for(draft, "trigger")
    assert list(payload["requestedSchema"]["properties"]) == shown
    assert set(payload["requestedSchema"]["required"]) == set(shown) - {"weekdays_only"}
    assert_flat(payload["requestedSchema"])


@pytest.mark.parametrize("kind", ["hourly", "on_demand"])
def test_a_schedule_with_nothing_more_to_ask_is_settled_at_once(kind: str) -> None:
    draft = answer(extract("help"), "trigger", {"kind": kind})
    assert draft.trigger == {"kind": kind}
    assert "trigger" not in draft.missing


def test_a_described_cadence_goes_straight_to_its_follow_up() -> None:
    payload = question_for(extract("Every morning check Zendesk"), "trigger")
    fields = payload["requestedSchema"]["properties"]
    assert list(fields) == ["time"]
    assert fields["time"]["default"] == "09:00"
    assert fields["time"]["x-ui"] == {"placeholder": "09:00"}
    assert re.fullmatch(fields["time"]["pattern"], "17:30")
    assert not re.fullmatch(fields["time"]["pattern"], "24:00")
    assert payload["message"] == (
        "At what time should the agent run every day? I suggest every day at 09:00; change it "
        "if that is not right."
    )


def test_days_of_the_week_are_checkboxes_not_a_multi_select() -> None:
    draft = apply_answer(extract("help"), "trigger", {"kind": "weekly"})
    days = question_for(draft, "trigger")["requestedSchema"]["properties"]["days"]
    assert days["type"] == "array"
    assert [option["const"] for option in days["items"]["anyOf"]] == catalog.values(catalog.DAYS)
    assert len(days["items"]["anyOf"]) <= CHECKBOX_LIMIT


def test_an_ambiguous_biweekly_asks_which_meaning() -> None:
    draft = extract("Biweekly, send a digest of Freshdesk tickets to #support")
    payload = question_for(draft, "trigger")
    assert payload["message"].startswith(
        "“Biweekly” can mean every two weeks or twice a week. How often should the agent run?"
    )
    draft = answer(draft, "trigger", {"kind": "every_n_weeks"})
    fields = question_for(draft, "trigger")["requestedSchema"]["properties"]
    assert fields["weeks"]["default"] == 2


def test_the_time_zone_question_defaults_to_utc_and_names_the_schedule() -> None:
    payload = question_for(extract("Every weekday at 9am check GitHub"), "timezone")
    fields = payload["requestedSchema"]["properties"]
    assert fields["timezone"]["default"] == "UTC"
    # The likely zones and "another one", never all ~600 (the contract caps options at 500).
    assert len(fields["timezone"]["oneOf"]) == len(catalog.TIMEZONES) + 1
    assert fields["timezone"]["oneOf"][-1]["const"] == "other"
    assert fields["timezone_name"]["x-ui"] == {"placeholder": "America/Vancouver"}
    assert payload["requestedSchema"]["required"] == ["timezone"]
    assert "every weekday at 09:00" in payload["message"]


def test_the_time_zone_question_prefers_a_proposed_zone() -> None:
    draft = AgentDraft(proposed={"timezone": "Asia/Tokyo"})
    field = question_for(draft, "timezone")["requestedSchema"]["properties"]["timezone"]
    assert field["default"] == "Asia/Tokyo"


def test_an_ambiguous_abbreviation_offers_its_zones_first() -> None:
    payload = question_for(extract("Every morning at 8 IST summarise Zendesk"), "timezone")
    options = payload["requestedSchema"]["properties"]["timezone"]["oneOf"]
    assert [option["const"] for option in options[:3]] == [
        "Asia/Kolkata",
        "Europe/Dublin",
        "Asia/Jerusalem",
    ]
    assert payload["message"].startswith(
        "The time zone you named can mean India, Dublin or Israel time."
    )


def test_a_misspelt_platform_is_suggested_and_pre_selected() -> None:
    payload = question_for(extract("Watch Zendsk for urgent tickets every hour"), "platform")
    assert payload["message"] == (
        "I don't know “Zendsk”. Did you mean Zendesk? Which platform should the agent watch "
        "for new work?"
    )
    assert payload["requestedSchema"]["properties"]["platform"]["default"] == "zendesk"


def test_the_destination_question_asks_for_the_missing_detail() -> None:
    payload = question_for(extract("Every hour summarise Zendesk and email me"), "destination")
    fields = payload["requestedSchema"]["properties"]
    assert payload["message"] == "Which email address should the agent send its results to?"
    assert fields["kind"]["default"] == "email"
    assert fields["address"]["format"] == "email"
    assert fields["channel"]["x-ui"] == {"placeholder": "#support"}


def test_name_and_purpose_questions_default_to_proposals() -> None:
    draft = extract("Remind me every 2 hours")
    assert question_for(draft, "name")["requestedSchema"]["properties"]["name"]["default"] == (
        "Reminder"
    )
    draft = extract("Keep our customers happy")
    field = question_for(draft, "purpose")["requestedSchema"]["properties"]["purpose"]
    assert field["default"] == "Keep our customers happy."


# A table (fmt: skip keeps its rows): slot, answer, what the draft then holds.
VALID_ANSWERS = [
    ("purpose", {"purpose": "Watch Freshdesk for urgent tickets"}, {"purpose": "Watch Freshdesk "
     "for urgent tickets.", "platform": "freshdesk"}),
    ("platform", {"platform": "intercom"}, {"platform": "intercom", "platform_candidates": []}),
    ("trigger", {"kind": "hourly"}, {"trigger": {"kind": "hourly"}}),
    ("trigger", {"kind": "on_demand"}, {"trigger": {"kind": "on_demand"}}),
    ("timezone", {"timezone": "Europe/Berlin"}, {"timezone": "Europe/Berlin"}),
    ("timezone", {"timezone": "other", "timezone_name": "Vancouver"},
     {"timezone": "America/Vancouver"}),
    ("timezone", {"timezone": "UTC", "timezone_name": "asia/kathmandu"},
     {"timezone": "Asia/Kathmandu"}),
    ("destination", {"kind": "slack_dm"}, {"destination": {"kind": "slack_dm"}}),
    ("destination", {"kind": "slack", "channel": "Support-EU"},
     {"destination": {"kind": "slack", "channel": "#support-eu"}}),
    ("destination", {"kind": "email", "address": "ops@example.com"},
     {"destination": {"kind": "email", "address": "ops@example.com"}}),
    ("destination", {"kind": "chat"}, {"destination": {"kind": "chat"}}),
    ("name", {"name": "  Triage   helper "}, {"name": "Triage helper"}),
    ("instructions", {"instructions": "Be brief.\nNever close tickets."},
     {"instructions": "Be brief.\nNever close tickets."}),
]  # fmt: skip


@pytest.mark.parametrize(("slot", "content", "expected"), VALID_ANSWERS)
def test_a_valid_answer_fills_the_slot(slot: str, content: dict, expected: dict) -> None:
    draft = extract("help")
    if slot == "platform":
        draft.platform_candidates = ["zendesk", "intercom"]
    updated = answer(draft, slot, content)
    assert {key: getattr(updated, key) for key in expected} == expected
    assert slot not in updated.missing
    assert slot not in updated.errors


INVALID_ANSWERS = [
    ("purpose", {"purpose": "   "}),
    ("purpose", {"purpose": "12345"}),
    ("platform", {"platform": "jira"}),
    ("platform", {}),
    ("trigger", {"kind": "fortnightly"}),
    ("timezone", {"timezone": "Mars/Olympus_Mons"}),
    ("timezone", {"timezone": "other"}),
    ("timezone", {"timezone": "UTC", "timezone_name": "Mars/Olympus_Mons"}),
    ("destination", {"kind": "slack"}),
    ("destination", {"kind": "email", "address": "not an address"}),
    ("destination", {"kind": "carrier-pigeon"}),
    ("name", {"name": ""}),
    ("name", {"name": "x" * 81}),
    ("name", {"name": 42}),
    ("instructions", {"instructions": ""}),
]


@pytest.mark.parametrize(("slot", "content"), INVALID_ANSWERS)
def test_an_invalid_answer_leaves_the_slot_missing(slot: str, content: dict) -> None:
    draft = extract("help")
    updated = apply_answer(draft, slot, content)
    assert getattr(updated, slot) is None
    assert slot in updated.missing
    assert updated.errors[slot].endswith(".")
    question = next_question(AgentDraft.from_dict({**updated.to_dict(), "missing": [slot]}))
    assert question is not None and question["payload"]["message"].startswith(updated.errors[slot])


# A table (fmt: skip keeps its rows): schedule kind, its follow-up answer, the trigger.
SCHEDULES = [
    ("every_n_minutes", {"minutes": 20}, {"kind": "every_n_minutes", "minutes": 20}),
    ("daily", {"time": "7:05"}, {"kind": "daily", "time": "07:05"}),
    ("weekdays", {"time": "17:00"}, {"kind": "weekdays", "time": "17:00"}),
    ("times_a_day", {"times": "16:00, 9:00", "weekdays_only": True},
     {"kind": "times_a_day", "times": ["09:00", "16:00"], "weekdays_only": True}),
    ("weekly", {"days": ["friday", "monday"], "time": "08:30"},
     {"kind": "weekly", "days": ["monday", "friday"], "time": "08:30"}),
    ("every_n_weeks", {"weeks": 3, "days": ["tuesday"], "time": "10:00"},
     {"kind": "every_n_weeks", "weeks": 3, "days": ["tuesday"], "time": "10:00"}),
    ("monthly", {"day_of_month": "last_weekday", "time": "16:30"},
     {"kind": "monthly", "day_of_month": "last_weekday", "time": "16:30"}),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "follow_up", "expected"), SCHEDULES)
def test_a_schedule_is_how_often_then_its_details(kind: str, follow_up: dict, expected) -> None:
    draft = answer(extract("help"), "trigger", {"kind": kind})
    draft = answer(draft, "trigger", follow_up)
    assert draft.trigger == expected
    assert "trigger" not in draft.missing and "trigger" not in draft.errors


# A table (fmt: skip keeps its rows): schedule kind, follow-up answer, the error shown.
BAD_FOLLOW_UPS = [
    ("daily", {}, "“Every day” needs a time of day, like 09:00."),
    ("weekly", {"time": "08:30"}, "Choose at least one day of the week."),
    ("every_n_minutes", {"minutes": 2}, "Give a number of minutes between 5 and 1440."),
    ("every_n_minutes", {"minutes": True}, "Give a number of minutes between 5 and 1440."),
    ("times_a_day", {"times": ", ".join(f"{hour}:00" for hour in range(8, 21))},
     "Give two to 12 different times of day, like 09:00, 16:00."),
    ("every_n_weeks", {"weeks": 1, "days": ["monday"], "time": "09:00"},
     "Give a number of weeks between 2 and 12."),
    ("monthly", {"day_of_month": "31", "time": "09:00"}, "Choose the day of the month."),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "follow_up", "problem"), BAD_FOLLOW_UPS)
def test_a_bad_follow_up_is_asked_again_with_the_reason(kind, follow_up, problem) -> None:
    draft = apply_answer(
        apply_answer(extract("help"), "trigger", {"kind": kind}), "trigger", follow_up
    )
    assert draft.trigger is None and draft.errors["trigger"] == problem
    again = question_for(draft, "trigger")
    assert again["message"].startswith(problem)
    assert draft.proposed["trigger"]["kind"] == kind  # the same follow-up, not "how often"


@pytest.mark.parametrize(
    ("typed", "weekdays_only", "trigger"),
    [
        ("17:00", False, {"kind": "daily", "time": "17:00"}),
        ("9am", True, {"kind": "weekdays", "time": "09:00"}),
    ],
)
def test_one_time_for_several_times_a_day_is_kept_not_asked_again(
    typed, weekdays_only, trigger
) -> None:
    draft = apply_answer(extract("help"), "trigger", {"kind": "times_a_day"})
    fields = question_for(draft, "trigger")["requestedSchema"]["properties"]
    assert fields["times"]["default"] == "09:00, 17:00"  # a suggestion, never empty
    updated = apply_answer(draft, "trigger", {"times": typed, "weekdays_only": weekdays_only})
    assert updated.trigger == trigger and "trigger" not in updated.missing
    assert "trigger" not in updated.errors


@pytest.mark.parametrize(
    ("typed", "times"),
    [
        ("9am and 5pm", ["09:00", "17:00"]),
        ("8, 13:00 and 18:00", ["08:00", "13:00", "18:00"]),
        ("noon & 6 p.m.", ["12:00", "18:00"]),
        ("09:00, 16:00", ["09:00", "16:00"]),
    ],
)
def test_times_are_typed_as_a_description_says_them(typed, times) -> None:
    draft = apply_answer(extract("help"), "trigger", {"kind": "times_a_day"})
    schema = question_for(draft, "trigger")["requestedSchema"]
    assert re.fullmatch(schema["properties"]["times"]["pattern"], typed)  # the form takes it
    updated = apply_answer(draft, "trigger", {"times": typed})
    assert updated.trigger == {"kind": "times_a_day", "times": times, "weekdays_only": False}


def test_a_time_zone_question_starts_from_the_persons_zone() -> None:
    draft = extract("Every day at 9am summarise Zendesk tickets in #support")
    draft.home_timezone = "Europe/Vienna"
    field = question_for(draft, "timezone")["requestedSchema"]["properties"]["timezone"]
    assert field["default"] == "Europe/Vienna"
    assert field["oneOf"][0]["const"] == "Europe/Vienna"  # offered first, though not curated
    named = extract("Every day at 9am summarise Zendesk tickets in #support, IST")
    named.home_timezone = "Europe/Vienna"
    field = question_for(named, "timezone")["requestedSchema"]["properties"]["timezone"]
    assert field["default"] == "Asia/Kolkata"  # what the description named comes first


def test_a_partial_schedule_keeps_what_was_given_for_the_next_question() -> None:
    draft = apply_answer(extract("help"), "trigger", {"kind": "weekly"})
    updated = apply_answer(draft, "trigger", {"time": "08:30"})
    assert updated.proposed["trigger"] == {"kind": "weekly", "time": "08:30"}
    fields = question_for(updated, "trigger")["requestedSchema"]["properties"]
    assert fields["time"]["default"] == "08:30"


def test_apply_answer_does_not_change_the_draft_it_was_given() -> None:
    draft = extract("help")
    before = draft.to_dict()
    apply_answer(draft, "platform", {"platform": "github"})
    apply_answer(draft, "trigger", {"kind": "daily"})
    apply_answer(draft, "trigger", {"time": "09:00"})
    apply_answer(draft, "nonsense", {"x": 1})
    apply_answer(draft, "platform", None)  # type: ignore[arg-type]
    assert draft.to_dict() == before


def test_an_interval_schedule_stops_the_time_zone_question() -> None:
    draft = extract("help")
    assert "timezone" in draft.missing
    draft = apply_answer(draft, "trigger", {"kind": "every_n_minutes"})
    draft = apply_answer(draft, "trigger", {"minutes": 15})
    assert "timezone" not in draft.missing


def test_a_described_purpose_fills_the_other_empty_slots() -> None:
    draft = apply_answer(
        extract("help"),
        "purpose",
        {"purpose": "Watch Zendesk for urgent tickets every 15 minutes and post to #support"},
    )
    assert draft.platform == "zendesk"
    assert draft.trigger == {"kind": "every_n_minutes", "minutes": 15}
    assert draft.destination == {"kind": "slack", "channel": "#support"}
    assert draft.name == "Zendesk urgent-ticket watcher"
    assert draft.missing == []
    assert draft.tools == ["request_input", "read_tickets", "post_message"]


def test_answers_are_redacted() -> None:
    draft = apply_answer(extract("help"), "instructions", {"instructions": "password: hunter2"})
    assert draft.instructions == "password: [redacted]"


def test_the_wizard_finishes_from_nothing() -> None:
    draft = extract("help")
    answers = [
        {"purpose": "Summarise Intercom conversations"},
        {"kind": "weekdays"},
        {"time": "17:00"},
        {"timezone": "Europe/London"},
        {"kind": "slack", "channel": "#cs"},
    ]
    asked = []
    while (question := next_question(draft)) is not None:
        assert len(asked) < 10
        asked.append(question["slot"])
        draft = answer(draft, question["slot"], answers[len(asked) - 1])
    assert asked == ["purpose", "trigger", "trigger", "timezone", "destination"]
    assert draft_to_config(draft) == {
        "name": "Intercom conversation digest",
        "purpose": "Summarise Intercom conversations.",
        "instructions": "Summarise Intercom conversations\n\nWhen something is unclear, ask the "
        "person with request_input instead of guessing.",
        "platform": "intercom",
        "trigger": {"kind": "weekdays", "time": "17:00"},
        "timezone": "Europe/London",
        "destination": {"kind": "slack", "channel": "#cs"},
        "tools": ["request_input", "read_conversations", "post_message"],
    }


def test_an_interval_agent_gets_utc() -> None:
    config = draft_to_config(extract("Watch GitHub every 2 hours and comment on the issue"))
    assert config["timezone"] == "UTC"
    assert config["trigger"] == {"kind": "every_n_minutes", "minutes": 120}
    assert config["destination"] == {"kind": "github_comment"}


def test_the_config_form_is_in_the_flat_dialect() -> None:
    schema = config_schema()
    assert_flat(schema)
    # No tools: they follow from the platform and the destination.
    assert list(schema["properties"]) == [
        "name",
        "purpose",
        "instructions",
        "platform",
        "trigger_kind",
        "trigger_time",
        "trigger_times",
        "trigger_weekdays_only",
        "trigger_minutes",
        "trigger_weeks",
        "trigger_days",
        "trigger_day_of_month",
        "timezone",
        "destination_kind",
        "destination_target",
        "questions_to",
        "questions_to_name",
    ]
    assert schema["properties"]["name"]["maxLength"] == 80
    assert schema["properties"]["instructions"]["format"] == "multiline"
    assert "name" in schema["required"]


CONFIG_DESCRIPTIONS = [
    "watch our Zendesk for urgent tickets every 15 minutes and post a summary to #support",
    "Every weekday at 9am summarise new GitHub issues in #eng-triage (Berlin time)",
    "every Monday at 8:30 post a report of stale pull requests to #eng, London time",
    "Every evening at 7 email a recap of the Gmail inbox to boss@corp.io, Tokyo time",
    "When I ask, draft replies to unassigned Freshdesk tickets and tell me here",
    "Every other Monday at 10am summarise Zendesk tickets in #support, Vancouver time",
    "Every weekday at 9am and 4pm check Intercom and send me a Slack DM, CET",
    "On the first weekday of each month at 9am email a Zendesk report to ops@example.com, UTC",
]


@pytest.mark.parametrize("description", CONFIG_DESCRIPTIONS)
def test_the_config_form_round_trips(description: str) -> None:
    config = draft_to_config(extract(description))
    values = config_to_form_values(config)
    schema = config_schema(config)
    assert_flat(schema)
    assert_valid(schema, values)
    defaults = {
        key: field["default"] for key, field in schema["properties"].items() if "default" in field
    }
    assert defaults == values
    assert form_values_to_config(values) == config


def test_the_config_tools_follow_the_platform_and_destination_never_the_form() -> None:
    values = config_to_form_values(draft_to_config(extract(CONFIG_DESCRIPTIONS[0])))
    values["tools"] = ["made_up", "send_email"]  # a tampered form: ignored
    tools = form_values_to_config(values)["tools"]
    assert tools == ["request_input", "read_tickets", "post_message"]


def test_the_config_form_explains_what_is_wrong() -> None:
    values = config_to_form_values(draft_to_config(extract(CONFIG_DESCRIPTIONS[0])))
    values.update(name="", trigger_kind="weekly", trigger_time="08:00", destination_target="")
    values.pop("trigger_minutes")
    with pytest.raises(ConfigFormError) as raised:
        form_values_to_config(values)
    assert set(raised.value.errors) == {"name", "trigger_days", "destination_target"}
    assert raised.value.errors["trigger_days"] == "Choose at least one day of the week."

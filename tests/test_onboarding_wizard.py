"""The setup agent's decisions, outside any run: later messages, card edits, plain words."""

from playground.onboarding import planner, summary
from playground.onboarding.questions import config_to_form_values

COMPLETE = "Every weekday at 9am summarise new GitHub issues in #eng-triage (Berlin time)"


def test_a_later_message_changes_the_schedule_but_keeps_the_words() -> None:
    saved = planner.read_description(COMPLETE)
    draft = planner.read_description("make it hourly", saved)
    assert draft["trigger"] == {"kind": "hourly"}
    assert draft["purpose"] == saved["purpose"]
    assert draft["name"] == saved["name"]
    assert draft["missing"] == []


def test_a_later_message_that_says_nothing_keeps_the_draft() -> None:
    saved = planner.read_description("Summarise new GitHub pull requests each evening")
    assert planner.read_description("carry on", saved) == saved


def test_a_later_message_fills_what_the_first_one_left_empty() -> None:
    saved = planner.read_description("asdf")
    draft = planner.read_description("Watch Zendesk for urgent tickets every 15 minutes", saved)
    assert draft["platform"] == "zendesk"
    assert draft["purpose"].startswith("Watch Zendesk")
    assert draft["missing"] == ["destination"]


def test_it_knows_when_a_description_said_nothing_it_can_use() -> None:
    assert planner.understood_nothing(planner.read_description("asdf qwerty"))
    assert planner.understood_nothing(planner.read_description(""))
    assert not planner.understood_nothing(planner.read_description("Help me triage my inbox"))


def test_an_accepted_card_becomes_the_configuration() -> None:
    config = planner.proposed_config(planner.read_description(COMPLETE))
    values = config_to_form_values(config) | {"trigger_time": "08:30"}
    expected = config | {"trigger": {"kind": "weekdays", "time": "08:30"}}
    assert planner.read_card(config, values) == {"config": expected}


def test_a_card_edit_without_a_channel_asks_for_the_channel_again() -> None:
    config = planner.proposed_config(planner.read_description(COMPLETE))
    edited = config_to_form_values(config) | {"name": "Triage digest"}
    del edited["destination_target"]  # an empty field is left out of the answer
    verdict = planner.read_card(config, edited)
    draft = verdict["draft"]
    assert draft["missing"] == ["destination"]
    assert draft["name"] == "Triage digest"  # the edits that were fine are kept
    question = planner.plan_question(draft)
    assert question["slot"] == "destination"
    assert question["payload"]["message"].startswith("Give the Slack channel to post in")
    schema = question["payload"]["requestedSchema"]
    assert schema["properties"]["kind"]["default"] == "slack"


def test_it_says_what_an_agent_does_in_plain_words() -> None:
    config = planner.proposed_config(planner.read_description(COMPLETE))
    assert summary.what_it_does(config) == (
        "reads GitHub issues and pull requests every weekday at 09:00 (Berlin time) "
        "and posts what it finds in #eng-triage on Slack"
    )
    interval = config | {
        "platform": "zendesk",
        "trigger": {"kind": "every_n_minutes", "minutes": 15},
        "destination": {"kind": "email", "address": "ops@example.com"},
    }
    assert summary.what_it_does(interval, first_person=True) == (
        "read Zendesk tickets every 15 minutes and email what I find to ops@example.com"
    )
    on_demand = config | {"trigger": {"kind": "on_demand"}, "destination": {"kind": "chat"}}
    assert summary.what_it_does(on_demand) == (
        "reads GitHub issues and pull requests only when someone asks and replies here in the chat"
    )

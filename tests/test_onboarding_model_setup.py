"""The setup agent answered by a model (pydantic-ai's FunctionModel, scripted): it asks through
forms, proposes the card, is corrected by the card's own checks, and makes an LLM agent whose
tools come from the MCP server declared for its platform (the SDK-built test server) and which
runs on its schedule."""

from zoneinfo import ZoneInfo

import pytest

from playground.onboarding import planner, setup_agent
from playground.runs.models import Agent, Schedule, Step, Turn
from playground.schedules import scheduler
from tests.support.llm_support import (
    REQUESTS,
    call,
    logged_in,  # noqa: F401  (a fixture)
    scripted,
    tool_results,
    use_scripted_model,
)
from tests.support.mcp_support import declare_platform_server
from tests.support.onboarding_support import DESCRIPTION, PROPOSAL, ZONE_QUESTION, open_wizard
from tests.support.runtime_helpers import answer, pending, said, send

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("logged_in")]


@pytest.fixture(autouse=True)
def model(settings, monkeypatch):
    use_scripted_model(settings, monkeypatch)


@pytest.fixture
def github_server(settings, tmp_path):
    declare_platform_server(settings, tmp_path, "github")


def proposal_problem(messages) -> str:
    return str(messages[-1].parts[0].content)


def script_a_digest(question: str) -> None:
    """Script the made agent's model: call the server's tool, ask `question` (a label), then
    reply with a digest of both results."""
    label = {"type": "string", "enum": ["bug", "docs"]}
    schema = {"type": "object", "properties": {"label": label}}
    scripted(
        [call("echo", text="issue 7: crash on start")],
        [call("request_input", message=question, requestedSchema=schema)],
        lambda messages: f"Digest: {tool_results(messages)[0]} ({tool_results(messages)[-1]})",
    )


def test_the_model_asks_then_proposes_the_card(client):
    scripted([call("request_input", **ZONE_QUESTION)], [("propose_configuration", PROPOSAL)])
    wizard = open_wizard(client)
    send(client, wizard, DESCRIPTION)
    question = pending(wizard)
    assert question.message == ZONE_QUESTION["message"]
    assert question.payload["requestedSchema"]["properties"]["time"]["default"] == "09:00"
    assert "every other Monday" in str(REQUESTS[0])  # it read the description
    answer(client, question, time="09:00", timezone="Europe/Berlin")
    card = pending(wizard)
    assert card.render_kind == "config-card"
    assert card.value["name"] == "Issue digest"
    assert card.value["trigger_kind"] == "every_n_weeks" and card.value["trigger_weeks"] == 2
    # The model's "every other Monday" is the trigger the rules make of the same words.
    rules = planner.read_description("every other Monday at 9am")
    assert {"kind": "every_n_weeks", "weeks": 2, "days": ["monday"], "time": "09:00"} == (
        rules["trigger"]
    )
    # Each model request is a recorded step of the turn.
    steps = Step.objects.filter(turn=card.turn, name__startswith="model request")
    assert steps.count() == len(REQUESTS) == 2


def test_a_bad_proposal_gets_the_checkers_words_and_is_corrected(client):
    bad = {**PROPOSAL, "trigger_kind": "every_n_minutes", "trigger_minutes": 2}
    bad |= {"destination_kind": "slack", "destination_target": ""}
    scripted([("propose_configuration", bad)], [("propose_configuration", PROPOSAL)])
    wizard = open_wizard(client)
    send(client, wizard, DESCRIPTION)
    problem = proposal_problem(REQUESTS[1])
    assert "trigger_minutes: Give a number of minutes between 5 and 1440." in problem
    assert "destination_target" in problem
    card = pending(wizard)
    assert card.value["trigger_kind"] == "every_n_weeks"
    assert card.value["destination_kind"] == "chat"


def test_cancel_on_a_models_question_keeps_a_draft(client):
    scripted([call("request_input", **ZONE_QUESTION)])
    wizard = open_wizard(client)
    send(client, wizard, DESCRIPTION)
    answer(client, pending(wizard), action="cancel")
    assert said(wizard)[-1] == setup_agent.KEPT_AS_DRAFT
    assert Agent.objects.get(pk=wizard.agent_id).is_draft


def test_a_model_that_never_proposes_anything_usable_hands_over_to_the_rules(client):
    scripted(*[[("propose_configuration", {**PROPOSAL, "platform": "jira"})]] * 4)
    wizard = open_wizard(client)
    send(
        client,
        wizard,
        "Every weekday at 9am summarise new GitHub issues and post it here (Berlin time)",
    )
    assert said(wizard)[0].endswith("So let me ask step by step instead.")
    card = pending(wizard)  # the rules read the description
    assert card.render_kind == "config-card" and card.value["platform"] == "github"


def test_without_a_server_for_the_platform_the_card_and_the_agent_say_so(client):
    scripted([("propose_configuration", PROPOSAL)])
    wizard = open_wizard(client)
    send(client, wizard, DESCRIPTION)
    card = pending(wizard)
    assert card.payload["details"]["Answered by"] == "m (scripted)"
    missing = card.payload["details"]["Before it can work"]
    assert missing.startswith("No MCP server for GitHub is declared")
    assert 'platforms = ["github"]' in missing
    answer(client, card)
    who = pending(wizard)
    assert who.payload["requestedSchema"]["properties"]["answered_by"]["default"] == "scripted/m"
    answer(client, who, answered_by="scripted/m")
    assert Agent.objects.get(pk=wizard.agent_id).kind == "llm"
    requests = len(REQUESTS)
    send(client, wizard, "Anything new?")
    assert "but I cannot do it yet" in said(wizard)[-1]
    assert "No MCP server for GitHub is declared" in said(wizard)[-1]
    assert said(wizard)[-1].endswith("Nothing was read or sent.")
    assert len(REQUESTS) == requests  # the model was not asked to pretend


def test_the_agent_it_makes_calls_its_platforms_server_and_asks(client, github_server):
    scripted([("propose_configuration", PROPOSAL)])
    wizard = open_wizard(client)
    send(client, wizard, DESCRIPTION)
    card = pending(wizard)
    assert card.payload["details"]["Ready to work"]
    answer(client, card)
    who = pending(wizard)
    assert who.message == "Who should answer this agent's messages?"
    assert who.payload["requestedSchema"]["properties"]["answered_by"]["default"] == "scripted/m"
    answer(client, who, answered_by="scripted/m")
    agent = Agent.objects.get(pk=wizard.agent_id)
    assert agent.kind == "llm" and not agent.is_draft
    assert agent.config["instructions"].startswith("You are Issue digest")
    assert "Read the GitHub issues opened since the last run" in agent.config["instructions"]

    script_a_digest("Which label should I look at?")
    send(client, wizard, "Anything new?")
    question = pending(wizard)
    assert question.message == "Which label should I look at?"
    answer(client, question, label="bug")
    reply = said(wizard)[-1]
    assert reply.startswith("Digest: issue 7: crash on start")
    assert "bug" in reply
    instructions = str(REQUESTS[0])
    assert (
        "Issue digest reads GitHub issues and pull requests every other week on Monday"
        in instructions
    )


def test_the_rules_still_set_up_an_agent_when_no_model_is_configured(client, settings):
    settings.LLM_PROVIDERS = []
    scripted([("propose_configuration", PROPOSAL)])
    wizard = open_wizard(client)
    send(
        client,
        wizard,
        "Every weekday at 9am summarise new GitHub issues and post it here (Berlin time)",
    )
    card = pending(wizard)
    assert card.render_kind == "config-card" and card.value["trigger_kind"] == "weekdays"
    assert "Answered by" not in card.payload["details"]
    assert REQUESTS == []


def test_the_agent_it_makes_runs_on_its_schedule_and_asks_in_its_runs_conversation(
    client, alice, github_server
):
    scripted([("propose_configuration", PROPOSAL)])
    wizard = open_wizard(client)
    send(client, wizard, DESCRIPTION)
    answer(client, pending(wizard))
    answer(client, pending(wizard), answered_by="scripted/m")
    agent = Agent.objects.get(pk=wizard.agent_id)
    assert agent.kind == "llm"

    # Making it gave its owner a schedule, at its trigger in its zone.
    schedule = Schedule.objects.get(agent=agent, owner=alice)
    assert schedule.description == "every other week on Monday at 09:00 (Berlin time)"
    assert schedule.time_zone == "Europe/Berlin" and not schedule.paused
    local = schedule.next_run_at.astimezone(ZoneInfo("Europe/Berlin"))
    assert (local.strftime("%A"), local.hour, local.minute) == ("Monday", 9, 0)

    script_a_digest("Which label should this run look at?")
    started, _ = scheduler.fire_due(now=schedule.next_run_at)
    [turn] = Turn.objects.filter(pk__in=started)
    schedule.refresh_from_db()
    assert turn.conversation_id == schedule.conversation_id
    assert turn.conversation.title == scheduler.RUNS_TITLE and turn.scheduled
    assert turn.text.startswith("Scheduled run, Mon ")
    assert "your schedule firing" in str(REQUESTS[0])  # the instructions say what a run is

    # Its question waits in the Runs conversation; the answer finishes the run.
    question = pending(schedule.conversation)
    assert question.message == "Which label should this run look at?"
    answer(client, question, label="bug")
    turn.refresh_from_db()
    assert turn.status == Turn.Status.DONE
    reply = said(schedule.conversation)[-1]
    assert reply.startswith("Digest: issue 7: crash on start") and "bug" in reply
    page = client.get(f"/agents/{agent.slug}/").content.decode()
    assert "Runs every other week on Monday at 09:00 (Berlin time)." in page

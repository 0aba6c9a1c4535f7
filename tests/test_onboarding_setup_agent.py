"""The setup agent through the real views: questions, the card, the agent it creates."""

import re
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync

from elicitation.models import Part
from playground.onboarding import catalog, setup_agent
from playground.runs.models import Agent, Conversation, Message, Schedule, Step, Turn
from playground.runs.tasks import execute_turn
from playground.schedules import scheduler
from tests.support.onboarding_support import COMPLETE, open_wizard
from tests.support.runtime_helpers import answer, pending, said, send

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def client(client, alice):
    client.force_login(alice)
    return client


@pytest.fixture
def wizard(client) -> Conversation:
    return open_wizard(client)


def questions(conversation: Conversation) -> list[str]:
    parts = Part.objects.filter(conversation=conversation, render_kind="elicitation")
    return [part.message for part in parts.order_by("turn__index", "call_index")]


def test_a_complete_description_goes_straight_to_the_card(client, wizard):
    send(client, wizard, COMPLETE)
    card = pending(wizard)
    assert card.render_kind == "config-card"
    assert questions(wizard) == []
    assert card.value["name"] == "GitHub issue digest"
    assert card.value["trigger_kind"] == "weekdays" and card.value["trigger_time"] == "09:00"
    assert card.value["timezone"] == "Europe/Berlin"
    assert card.value["destination_target"] == "#eng-triage"


def test_accepting_the_card_creates_the_agent_in_place(client, wizard, alice):
    send(client, wizard, COMPLETE)
    assert answer(client, pending(wizard)).status_code == 200
    agent = Agent.objects.get(pk=wizard.agent_id)
    assert (agent.slug, agent.name, agent.kind) == (
        "github-issue-digest",
        "GitHub issue digest",
        "configured",
    )
    assert not agent.is_draft and agent.owner == alice
    assert agent.config["trigger"] == {"kind": "weekdays", "time": "09:00"}
    assert agent.config["tools"] == ["request_input", "read_issues", "post_message"]
    home = client.get("/").content.decode()
    assert "Chat with GitHub issue digest" in home
    assert "/agents/github-issue-digest/config.json" in home


def test_an_agent_that_cannot_work_yet_says_so_and_its_schedule_waits_paused(client, wizard):
    send(client, wizard, COMPLETE)
    assert (
        "Until then its schedule stays paused."
        in pending(wizard).payload["details"]["Before it can work"]
    )
    answer(client, pending(wizard))
    made = said(wizard)[-1]
    assert made.startswith(
        "**GitHub issue digest** is made, but it cannot work yet. Once it can, it will read "
        "GitHub issues and pull requests every weekday at 09:00 (Berlin time) and post what it "
        "finds in #eng-triage on Slack. It lacks:\n\n- No model is configured"
    )
    assert "is ready" not in made and 'platforms = ["github"]' in made
    assert setup_agent.PAUSED_UNTIL_READY in made
    agent = Agent.objects.get(pk=wizard.agent_id)
    schedule = Schedule.objects.get(agent=agent)
    assert schedule.paused  # no run that could only say it read nothing
    assert scheduler.fire_due(now=schedule.next_run_at + timedelta(days=7))[0] == []
    page = client.get(f"/agents/{agent.slug}/").content.decode()
    assert "once resumed" in page and ">Resume<" in page


def test_an_agent_only_asked_is_told_without_a_schedule_sentence(client, wizard):
    send(client, wizard, "When I ask, summarise new GitHub issues in #eng-triage")
    answer(client, pending(wizard))
    made = said(wizard)[-1]
    assert "it will read GitHub issues and pull requests only when someone asks" in made
    assert "Resume" not in made and "schedule" not in made


def test_the_accepted_card_shows_no_answer_nobody_gave(client, wizard):
    send(client, wizard, COMPLETE)
    card = pending(wizard)
    html = answer(client, card).content.decode()
    assert "Every weekday" in html
    assert "Only on weekdays" not in html  # untouched, so not "No"
    card.refresh_from_db()
    assert "trigger_weekdays_only" not in card.response["content"]


def test_the_created_agent_says_plainly_what_it_lacks_and_pretends_nothing(client, wizard):
    send(client, wizard, COMPLETE)
    answer(client, pending(wizard))
    send(client, wizard, "Anything new?")
    assert said(wizard)[-1] == (
        "I'm **GitHub issue digest**. I'm set up to read GitHub issues and pull requests every "
        "weekday at 09:00 (Berlin time) and post what I find in #eng-triage on Slack, but I "
        "cannot do it yet:\n\n"
        "- No model is configured, so nothing can do its work: whoever runs this playground "
        "sets LLM_BASE_URL and LLM_MODELS (or ANTHROPIC_API_KEY) and restarts it.\n"
        "- No MCP server for GitHub is declared, so it has no GitHub tools: whoever runs this "
        "playground adds one to the servers file (MCP_SERVERS_FILE) with "
        'platforms = ["github"].\n'
        "- No MCP server for Slack is declared, so it has no Slack tools: whoever runs this "
        "playground adds one to the servers file (MCP_SERVERS_FILE) with "
        'platforms = ["slack"].\n\n'
        "Nothing was read or sent."
    )
    assert Turn.objects.filter(conversation=wizard).last().status == Turn.Status.DONE
    assert not Part.objects.filter(conversation=wizard, state="pending").exists()


def test_the_card_says_what_the_agent_will_lack_and_how_to_add_it(client, wizard):
    send(client, wizard, COMPLETE)
    details = pending(wizard).payload["details"]
    assert "Answered by" not in details
    missing = details["Before it can work"]
    assert missing.startswith("No model is configured")
    assert 'platforms = ["github"]' in missing and 'platforms = ["slack"]' in missing


def test_nonsense_gets_a_clarifying_question_not_an_error(client, wizard):
    send(client, wizard, "asdf qwerty")
    assert said(wizard) == [setup_agent.NOT_UNDERSTOOD]
    assert pending(wizard).message.startswith("What should the new agent do?")
    assert Turn.objects.get(conversation=wizard).status == Turn.Status.WAITING


def test_from_nothing_it_asks_for_every_slot_in_turn(client, wizard):
    send(client, wizard, "hmm")
    answers = [
        {"purpose": "Keep my team up to date"},
        {"platform": "zendesk"},
        {"kind": "daily"},
        {"time": "08:30"},
        {"timezone": "Europe/Paris"},
        {"kind": "email", "address": "ops@example.com"},
        {"name": "Morning digest"},
    ]
    for content in answers:
        assert answer(client, pending(wizard), **content).status_code == 200
    assert [message.split("?")[0] for message in questions(wizard)] == [
        "What should the new agent do",
        "Which platform should the agent watch for new work",
        "How often should the agent run",
        "At what time should the agent run every day",
        "Which time zone should the schedule (every day at 08:30) follow",
        "Where should the agent send its results",
        "What should this agent be called",
    ]
    card = pending(wizard)
    assert card.render_kind == "config-card"
    assert card.value["name"] == "Morning digest"
    assert card.value["destination_target"] == "ops@example.com"


def test_a_bad_answer_is_asked_again_with_the_reason(client, wizard):
    send(client, wizard, "Summarise new GitHub pull requests twice a day")
    assert pending(wizard).message.startswith("At which times of day should the agent run?")
    # A form cannot say "at most twelve times"; the setup agent can.
    many = ", ".join(f"{hour}:00" for hour in range(8, 21))
    assert answer(client, pending(wizard), times=many).status_code == 200
    again = pending(wizard)
    assert again.message.startswith("Give two to 12 different times of day, like 09:00, 16:00.")
    assert answer(client, again, times="9am and 5:30pm").status_code == 200
    assert pending(wizard).message.startswith(
        "Which time zone should the schedule (every day at 09:00 and 17:30) follow?"
    )


def test_one_time_for_twice_a_day_is_kept_not_asked_again(client, wizard):
    send(client, wizard, "Summarise new GitHub pull requests twice a day")
    assert answer(client, pending(wizard), times="09:00").status_code == 200
    assert pending(wizard).message.startswith(
        "Which time zone should the schedule (every day at 09:00) follow?"
    )
    assert len(questions(wizard)) == 2  # no trail of the same question


def test_the_wizards_bookkeeping_is_not_shown_and_its_questions_keep_their_asker(client, wizard):
    send(client, wizard, "Summarise new GitHub pull requests each evening in #eng")
    answer(client, pending(wizard), time="18:00")
    answer(client, pending(wizard), timezone="UTC")
    answer(client, pending(wizard), name="PR digest")
    answer(client, pending(wizard))  # the card, accepted: the agent takes over the chat
    recorded = Step.objects.filter(turn__conversation=wizard).values_list("name", flat=True)
    assert {"onboarding: the setup model", "onboarding: what the agent lacks"} <= set(recorded)
    page = client.get(f"/c/{wizard.pk}/").content.decode()
    assert 'class="step' not in page and "onboarding:" not in page  # recorded, not shown
    assert page.count("Agent setup asks") == 3
    assert "Proposal from Agent setup" in page
    assert "PR digest asks" not in page


def test_a_secret_is_not_stored_and_gets_a_pointer_to_connecting(client, wizard):
    secret = "sk-abcdefghijklmnopqrstuvwxyz123456"
    send(client, wizard, f"Watch Zendesk every hour, here is my API key {secret}")
    turn = Turn.objects.get(conversation=wizard)
    assert secret not in turn.text and "[redacted]" in turn.text
    assert said(wizard)[0] == setup_agent.SECRET_POINTER
    stored = [
        str(Agent.objects.get(pk=wizard.agent_id).config),
        *Message.objects.values_list("text", flat=True),
        *(str(result) for result in Step.objects.values_list("result", flat=True)),
        *(str(payload) for payload in Part.objects.values_list("payload", flat=True)),
    ]
    assert not [text for text in stored if secret in text]


def test_cancel_keeps_the_draft_and_a_later_message_carries_on(client, wizard):
    send(client, wizard, "Summarise new GitHub pull requests each evening")
    assert answer(client, pending(wizard), time="18:00").status_code == 200
    assert answer(client, pending(wizard), action="cancel").status_code == 200
    assert said(wizard)[-1] == setup_agent.KEPT_AS_DRAFT
    assert Agent.objects.get(pk=wizard.agent_id).is_draft

    send(client, wizard, "carry on")
    # The schedule answered in the first turn is not asked again.
    assert pending(wizard).message.startswith("Which time zone should the schedule")


def test_an_invalid_edit_keeps_the_card_open_with_the_error_and_what_was_typed(client, wizard):
    send(client, wizard, COMPLETE)
    card = pending(wizard)
    edited = card.value | {
        "name": "Triage digest",
        "destination_kind": "email",
        "destination_target": "cx-daily-at-example",
    }
    refused = answer(client, card, **edited)
    assert refused.status_code == 422
    html = refused.content.decode()
    assert "Accepted" not in html and "Save and accept" in html  # still the card, in Edit
    assert 'value="cx-daily-at-example"' in html and 'value="Triage digest"' in html
    assert "email address" in html.lower()
    card.refresh_from_db()
    assert card.state == "pending"

    fixed = edited | {"destination_target": "cx-daily@example.com"}
    assert answer(client, card, **fixed).status_code == 200
    agent = Agent.objects.get(pk=wizard.agent_id)
    assert agent.config["destination"] == {"kind": "email", "address": "cx-daily@example.com"}


def test_a_refused_edit_keeps_the_cards_values_in_the_fields_it_hid(client, wizard):
    send(client, wizard, COMPLETE)  # every weekday at 09:00
    card = pending(wizard)
    # Every 0 minutes is refused; the time was hidden (so not sent) for "every N minutes".
    edited = card.value | {"trigger_kind": "every_n_minutes", "trigger_minutes": "0"}
    del edited["trigger_time"]
    html = answer(client, card, **edited).content.decode()
    assert 'name="answer.trigger_minutes" type="number" value="0"' in html  # as typed
    time = r'id="part-\d+-trigger_time" name="answer.trigger_time"[^>]* value="09:00"'
    assert re.search(time, html)  # hidden for every N minutes: the card's own time


def test_edit_recomputes_the_tools_from_the_platform_and_destination(client, wizard):
    send(client, wizard, COMPLETE)
    card = pending(wizard)
    assert "tools" not in card.value  # shown read-only, never a form field
    edited = card.value | {
        "platform": "zendesk",
        "destination_kind": "email",
        "destination_target": "cx@example.com",
    }
    assert answer(client, card, **edited).status_code == 200
    tools = Agent.objects.get(pk=wizard.agent_id).config["tools"]
    assert tools == catalog.tools_for("zendesk", "email")
    assert "send_email" in tools and "post_message" not in tools


def test_two_agents_with_the_same_name_get_their_own_addresses(client, alice):
    slugs = []
    for _ in range(2):
        conversation = open_wizard(client)
        send(client, conversation, COMPLETE)
        answer(client, pending(conversation))
        slugs.append(Agent.objects.get(pk=conversation.agent_id).slug)
    assert slugs == ["github-issue-digest", "github-issue-digest-2"]


def test_replaying_the_turn_that_created_the_agent_changes_nothing(client, wizard):
    send(client, wizard, COMPLETE)
    answer(client, pending(wizard))
    before = said(wizard)
    # As after a crash: the turn runs again, now under the configured agent's implementation.
    turn = Turn.objects.get(conversation=wizard)
    Turn.objects.filter(pk=turn.pk).update(status=Turn.Status.QUEUED)
    async_to_sync(execute_turn)(turn.pk)
    assert said(wizard) == before
    assert Agent.objects.filter(owner=wizard.owner).count() == 1
    assert Turn.objects.get(pk=turn.pk).status == Turn.Status.DONE


def test_edit_groups_the_fields_and_shows_only_those_that_apply(client, wizard):
    send(client, wizard, COMPLETE)  # every weekday at 9am, to a Slack channel
    card = pending(wizard)
    html = client.get(f"/parts/{card.pk}/edit").content.decode()
    legends = re.findall(r"<legend>(What|When|Where)</legend>", html)
    assert legends == ["What", "When", "Where"]
    shown = []
    for field in html.split('<div class="field')[1:]:
        opening, rest = field.split(">", 1)
        if " hidden" not in opening:
            shown += re.findall(r'name="answer\.(\w+)"', rest)[:1]
    assert "trigger_time" in shown and "destination_target" in shown
    for other in ("trigger_minutes", "trigger_days", "trigger_weeks", "trigger_day_of_month"):
        assert other not in shown  # on the page, hidden until its schedule is chosen
        assert f'name="answer.{other}"' in html
    assert "multiple" not in html  # no Ctrl-click multi-select

"""Support triage keeps its promise: the interval the person chooses becomes a real schedule of
theirs; with a model and an MCP server declared for the platform each run reads it with the
server's tools and asks in the Runs conversation, and without them each run says what is
missing, never that it flagged anything."""

from datetime import timedelta

import pytest
from django.utils import timezone

from playground.runs.models import Conversation, Schedule, Turn
from playground.schedules import scheduler
from tests.conftest import make_conversation
from tests.support.llm_support import REQUESTS, call, scripted, tool_results, use_scripted_model
from tests.support.mcp_support import declare_platform_server
from tests.support.runtime_helpers import answer, pending, said, send

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def model(settings, monkeypatch):
    use_scripted_model(settings, monkeypatch)


@pytest.fixture
def zendesk_server(settings, tmp_path):
    declare_platform_server(settings, tmp_path, "zendesk")


def schedule_checks(client, alice) -> tuple[Conversation, Schedule]:
    client.force_login(alice)
    conversation = make_conversation(alice, "support-triage")
    send(client, conversation, "Watch our Zendesk for urgent tickets")
    answer(
        client, pending(conversation), platform="zendesk", interval_minutes="15", urgent_only="true"
    )
    return conversation, Schedule.objects.get(agent__slug="support-triage", owner=alice)


def test_without_a_server_or_a_model_the_schedule_waits_paused_and_a_run_says_what_is_missing(
    client, alice, seeded, settings
):
    settings.LLM_PROVIDERS, settings.LLM_BASE_URL, settings.ANTHROPIC_API_KEY = [], "", ""
    conversation, schedule = schedule_checks(client, alice)
    (reply,) = said(conversation)
    assert reply.startswith(
        "I cannot read Zendesk yet, so I have not started the checks: your schedule (every 15 "
        "minutes) is paused, since each run could only say it read nothing. Once I can, I'll "
        "read Zendesk every 15 minutes and flag urgent tickets; press **Resume**"
    )
    assert "No MCP server for Zendesk" in reply and "Scheduled:" not in reply

    # Paused where it is made: no slot fires a run that could only say it read nothing.
    assert schedule.description == "every 15 minutes" and schedule.paused
    assert scheduler.fire_due(now=schedule.next_run_at + timedelta(hours=1))[0] == []
    page = client.get("/agents/support-triage/").content.decode()
    assert "Runs every 15 minutes once resumed." in page and ">Resume<" in page

    # Resumed anyway, a run says what it lacks and pretends nothing.
    before = timezone.now()
    scheduler.resume(schedule)
    schedule.refresh_from_db()
    assert before < schedule.next_run_at <= before + timedelta(minutes=15, seconds=1)
    scheduler.fire_due(now=schedule.next_run_at)
    schedule.refresh_from_db()
    (run,) = said(schedule.conversation)
    assert run.startswith(
        "Checked for urgent tickets on **Zendesk**: nothing was read and nothing was flagged."
    )
    assert 'platforms = ["zendesk"]' in run and "No model is configured" in run
    page = client.get("/agents/support-triage/").content.decode()
    assert "Runs every 15 minutes." in page and ">Pause<" in page


def test_with_a_model_and_a_server_each_run_reads_the_platform_and_asks(
    client, alice, seeded, model, zendesk_server
):
    conversation, schedule = schedule_checks(client, alice)
    (reply,) = said(conversation)
    assert reply.startswith("Scheduled: I'll run every 15 minutes, each run a turn in my **Runs**")
    assert "Each run reads Zendesk and flags urgent tickets" in reply and not schedule.paused

    flag = {"type": "object", "properties": {"flag": {"type": "boolean", "title": "Flag it"}}}
    scripted(
        [call("echo", text="ticket 42: checkout is down")],
        [call("request_input", message="Ticket 42 looks urgent: flag it?", requestedSchema=flag)],
        lambda messages: f"Flagged: {tool_results(messages)[0]}",
    )
    started, _ = scheduler.fire_due(now=schedule.next_run_at)
    [turn] = Turn.objects.filter(pk__in=started)
    schedule.refresh_from_db()
    assert turn.conversation_id == schedule.conversation_id and turn.scheduled
    assert "flag the urgent tickets that need a person" in str(REQUESTS[0])
    question = pending(schedule.conversation)
    assert question.message == "Ticket 42 looks urgent: flag it?"
    answer(client, question, flag="true")
    turn.refresh_from_db()
    assert turn.status == Turn.Status.DONE
    assert said(schedule.conversation)[-1] == "Flagged: ticket 42: checkout is down"

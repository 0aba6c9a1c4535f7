"""Support triage keeps its promise: the interval the person chooses becomes a real schedule of
theirs, and each run says plainly that nothing is connected, never that it flagged anything."""

from datetime import timedelta

import pytest
from django.utils import timezone

from playground import scheduler
from playground.models import Schedule
from tests.conftest import make_conversation
from tests.runtime_helpers import answer, pending, said, send

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_chosen_interval_runs_for_real_and_each_run_says_what_it_could_not_read(
    client, alice, seeded
):
    client.force_login(alice)
    conversation = make_conversation(alice, "support-triage")
    send(client, conversation, "Watch our Zendesk for urgent tickets")
    before = timezone.now()
    answer(
        client, pending(conversation), platform="zendesk", interval_minutes="15", urgent_only="true"
    )
    (reply,) = said(conversation)
    assert reply.startswith("Scheduled: I'll run every 15 minutes, each run a turn in my **Runs**")
    assert "Nothing is connected to Zendesk in this playground" in reply

    schedule = Schedule.objects.get(agent__slug="support-triage", owner=alice)
    assert schedule.description == "every 15 minutes" and not schedule.paused
    assert before < schedule.next_run_at <= before + timedelta(minutes=15, seconds=1)
    scheduler.fire_due(now=schedule.next_run_at)
    schedule.refresh_from_db()
    assert said(schedule.conversation) == [
        "Checked for urgent tickets on **Zendesk**: nothing is connected to Zendesk in this "
        "playground, so nothing was read and nothing was flagged."
    ]
    page = client.get("/agents/support-triage/").content.decode()
    assert "Runs every 15 minutes." in page and ">Pause<" in page

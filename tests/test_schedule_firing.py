"""Schedules fire on a controlled clock: each due slot starts one turn in the agent's Runs
conversation, headed by its time; a slot due while the last run waits is skipped and noted;
after downtime one catch-up run says what it stands for; Pause, Resume and Run now do what
they say; a failed run leaves the next slot to fire."""

from datetime import UTC, datetime, timedelta

import pytest

from playground.runs.agents import Planned, agent
from playground.runs.models import Agent, Schedule, ScheduledRun, Turn
from playground.schedules import scheduler
from tests.support.runtime_helpers import agent_row, answer, pending, said

pytestmark = pytest.mark.django_db(transaction=True)

BERLIN = "Europe/Berlin"
# Friday 4 December 2026, 12:00 in Berlin.
FRIDAY_NOON = datetime(2026, 12, 4, 11, 0, tzinfo=UTC)
MONDAY_9 = datetime(2026, 12, 7, 8, 0, tzinfo=UTC)  # 09:00 CET
WEEKDAYS_AT_9 = Planned({"kind": "weekdays", "time": "09:00"}, BERLIN, "every weekday at 09:00")
FAILING = {"on": True}


@agent("scheduled-reporter", name="Reporter", listed=False)
async def reporter(ctx, message: str) -> None:
    await ctx.say(f"Reporting for: {message}")


@agent("scheduled-asker", name="Asker", listed=False)
async def asker(ctx, message: str) -> None:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean", "title": "Go on?"}}}
    await ctx.elicit("Anything to add before I report?", schema)
    await ctx.say("Reported.")


@agent("scheduled-failer", name="Failer", listed=False)
async def failer(ctx, message: str) -> None:
    if FAILING["on"]:
        raise RuntimeError("the platform did not answer")
    await ctx.say("This time it worked.")


def schedule_of(slug: str, person, plan: Planned = WEEKDAYS_AT_9) -> Schedule:
    return scheduler.set_schedule(agent_row(slug), person, plan, now=FRIDAY_NOON)


def runs_turns(schedule: Schedule) -> list[Turn]:
    schedule.refresh_from_db()
    if schedule.conversation is None:
        return []
    return list(schedule.conversation.turns.order_by("index"))


def test_a_due_slot_starts_one_turn_in_the_runs_conversation_headed_by_its_time(alice):
    schedule = schedule_of("scheduled-reporter", alice)
    assert schedule.next_run_at == MONDAY_9  # the weekend is skipped

    assert scheduler.fire_due(now=MONDAY_9 - timedelta(seconds=1))[0] == []
    started, next_due = scheduler.fire_due(now=MONDAY_9)
    assert len(started) == 1 and next_due == MONDAY_9 + timedelta(days=1)
    # Fired again at the same moment, or by a second runner a moment later: nothing more.
    assert scheduler.fire_due(now=MONDAY_9)[0] == []
    assert scheduler.fire_due(now=MONDAY_9 + timedelta(seconds=2))[0] == []

    (turn,) = runs_turns(schedule)
    assert turn.conversation.title == "Runs" and turn.conversation.owner == alice
    assert turn.text == "Scheduled run, Mon 7 Dec 09:00 CET" and turn.scheduled
    assert turn.status == Turn.Status.DONE
    assert said(turn.conversation) == ["Reporting for: Scheduled run, Mon 7 Dec 09:00 CET"]
    # The next day's run is the next turn of the same conversation.
    scheduler.fire_due(now=MONDAY_9 + timedelta(days=1))
    assert [t.text for t in runs_turns(schedule)][1] == "Scheduled run, Tue 8 Dec 09:00 CET"


def test_a_slot_due_while_the_last_run_waits_for_an_answer_is_skipped_and_noted(alice, client):
    schedule = schedule_of("scheduled-asker", alice)
    scheduler.fire_due(now=MONDAY_9)
    (turn,) = runs_turns(schedule)
    assert Turn.objects.get(pk=turn.pk).status == Turn.Status.WAITING

    scheduler.fire_due(now=MONDAY_9 + timedelta(days=1))
    assert len(runs_turns(schedule)) == 1  # not stacked
    skipped = schedule.runs.get(kind=ScheduledRun.Kind.SKIPPED)
    assert skipped.note == (
        "Skipped the slot of Tue 8 Dec 09:00 CET: the run of Mon 7 Dec 09:00 CET was still "
        "waiting for an answer."
    )
    client.force_login(alice)
    page = client.get(f"/c/{turn.conversation_id}/").content.decode()
    assert skipped.note in page and "waiting for your answer" in page

    answer(client, pending(turn.conversation), ok="true")
    assert Turn.objects.get(pk=turn.pk).status == Turn.Status.DONE
    scheduler.fire_due(now=MONDAY_9 + timedelta(days=2))
    assert [t.text for t in runs_turns(schedule)][1] == "Scheduled run, Wed 9 Dec 09:00 CET"


def test_after_downtime_the_missed_slots_give_one_catch_up_run_that_says_so(alice):
    every_15 = Planned({"kind": "every_n_minutes", "minutes": 15}, BERLIN)
    schedule = schedule_of("scheduled-reporter", alice, every_15)
    first = schedule.next_run_at
    back = first + timedelta(hours=1, minutes=5)  # the slots of +0, 15, 30, 45 and 60 passed

    started, next_due = scheduler.fire_due(now=back)
    assert len(started) == 1
    (turn,) = runs_turns(schedule)
    assert turn.text == (
        "Catch-up run, Fri 4 Dec 13:20 CET: 5 scheduled runs were missed, Fri 4 Dec 12:15 CET "
        "to Fri 4 Dec 13:15 CET while no runner was up, so this one run stands for them."
    )
    assert schedule.runs.get().missed == 5
    assert next_due == first + timedelta(hours=1, minutes=15)  # counted on from the rule


def test_one_slot_found_late_is_a_catch_up_too(alice, settings):
    schedule = schedule_of("scheduled-reporter", alice)
    scheduler.fire_due(now=MONDAY_9 + timedelta(seconds=settings.SCHEDULE_LATE_SECONDS + 1))
    (turn,) = runs_turns(schedule)
    assert turn.text.startswith("Catch-up run, Mon 7 Dec 09:01 CET: the run of Mon 7 Dec 09:00 CET")


def test_pause_stops_the_next_slot_at_once_and_resume_counts_from_then_on(alice):
    schedule = schedule_of("scheduled-reporter", alice)
    scheduler.pause(schedule)
    assert scheduler.fire_due(now=MONDAY_9 + timedelta(days=3))[0] == []
    schedule.refresh_from_db()
    scheduler.resume(schedule, now=MONDAY_9 + timedelta(days=3, hours=1))  # Thursday 10:00
    schedule.refresh_from_db()
    assert schedule.next_run_at == MONDAY_9 + timedelta(days=4)  # Friday 09:00: no catch-up
    scheduler.fire_due(now=MONDAY_9 + timedelta(days=4))
    assert [t.text for t in runs_turns(schedule)] == ["Scheduled run, Fri 11 Dec 09:00 CET"]


def test_run_now_starts_a_run_whatever_the_slots_say(alice):
    schedule = schedule_of("scheduled-reporter", alice)
    turn = scheduler.run_now(schedule, now=FRIDAY_NOON)
    assert turn.text == "Run now, Fri 4 Dec 12:00 CET"
    assert Turn.objects.get(pk=turn.pk).status == Turn.Status.DONE
    schedule.refresh_from_db()
    assert schedule.next_run_at == MONDAY_9  # the schedule itself is unchanged


def test_a_failed_run_marks_its_turn_failed_and_the_next_slot_still_fires(alice):
    schedule = schedule_of("scheduled-failer", alice)
    FAILING["on"] = True
    scheduler.fire_due(now=MONDAY_9)
    FAILING["on"] = False
    scheduler.fire_due(now=MONDAY_9 + timedelta(days=1))
    first, second = runs_turns(schedule)
    assert first.status == Turn.Status.FAILED and "the platform did not answer" in first.error
    assert second.status == Turn.Status.DONE


def test_deleting_an_agent_removes_its_schedule(alice):
    schedule = schedule_of("scheduled-reporter", alice)
    Agent.objects.filter(pk=schedule.agent_id).delete()
    assert not Schedule.objects.exists()


def test_each_person_has_their_own_schedule_of_a_built_in_agent(alice, bob):
    mine, theirs = schedule_of("scheduled-reporter", alice), schedule_of("scheduled-reporter", bob)
    assert mine.pk != theirs.pk
    scheduler.fire_due(now=MONDAY_9)
    assert runs_turns(mine)[0].conversation.owner == alice
    assert runs_turns(theirs)[0].conversation.owner == bob


def test_an_agent_made_in_the_wizard_runs_on_its_trigger_in_its_zone(alice):
    config = {
        "name": "Triage digest",
        "platform": "github",
        "trigger": {"kind": "weekdays", "time": "09:00"},
        "timezone": BERLIN,
        "destination": {"kind": "chat"},
    }
    made = Agent.objects.create(
        slug="triage-digest", name="Triage digest", kind="configured", owner=alice, config=config
    )
    schedule = Schedule.objects.get(agent=made, owner=alice)
    assert schedule.description == "every weekday at 09:00 (Berlin time)"
    assert schedule.rule.splitlines()[1].startswith("RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR")
    # Changing its trigger moves the schedule; saving it unchanged does not.
    made.config = config | {"trigger": {"kind": "daily", "time": "07:30"}}
    made.save()
    schedule.refresh_from_db()
    assert schedule.description == "every day at 07:30 (Berlin time)"
    assert scheduler.slot_label(schedule.next_run_at, BERLIN).endswith("07:30 CET")

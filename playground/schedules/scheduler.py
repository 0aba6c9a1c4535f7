"""Schedules that fire: a due slot is claimed like a turn and starts a turn in the Runs chat.

A Schedule row belongs to (agent, person); its `next_run_at` is the queue. `fire_due` takes
the due schedules with `select_for_update(skip_locked=True)` (on SQLite writes serialize) and,
in the same transaction, moves each one's `next_run_at` past now with a conditional UPDATE and
writes what the slot did: a turn in the agent's Runs conversation and the ScheduledRun row
pointing at it (unique per slot). Nothing leaves the database before the commit, so a runner
that dies mid-claim leaves the slot due for the next one, and two runners never start it twice.
The turn then runs like any other: its questions, chips, admin review and notifications are
those of every turn, and a runner that dies mid-run is recovered by the turn's heartbeat.

- A slot due while this schedule's previous run still runs or waits for an answer is skipped
  and noted (a ScheduledRun of kind "skipped"), never stacked.
- After downtime, the slots missed give one catch-up run that says how many it stands for; a
  single slot found more than SCHEDULE_LATE_SECONDS late is a catch-up too.
- Pausing stops future slots at once; resuming counts from then on (no catch-up for a pause).

The schedules job fires due slots (in the embedded server, or a `manage.py worker`): it
sleeps until the next slot falls due (at most RECOVERY_SWEEP_SECONDS), or until a schedule
changes, in any process (`jobs.wake_on_commit`).
`now` is a parameter throughout, so the tests drive the clock.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Min
from django.template.loader import render_to_string
from django.utils import timezone

from elicitation.database_hop import in_db
from elicitation.zones import zone_of
from playground import jobs
from playground.chat import fragments
from playground.chat.push import push_html_soon
from playground.jobs.claim import lock_due
from playground.runs.agents import REGISTRY, Planned, planned
from playground.runs.models import Agent, Conversation, Schedule, ScheduledRun, Turn
from playground.runs.tasks import turn_queued
from playground.schedules import recurrence

logger = logging.getLogger(__name__)

RUNS_TITLE = "Runs"
CLAIM_LIMIT = 100  # schedules fired per claim; more due ones are taken at once after
CONTENDED_SECONDS = 0.25  # how soon to look again at slots another runner is firing
BUSY = {
    Turn.Status.QUEUED: "still running",
    Turn.Status.RUNNING: "still running",
    Turn.Status.WAITING: "still waiting for an answer",
}
# Slots to look ahead on the agent page.
UPCOMING = 3


def slot_label(instant: datetime, zone_name: str) -> str:
    """Return a slot as its agent's clock shows it: "Mon 1 Dec 09:00 CET"."""
    local = instant.astimezone(recurrence.zone(zone_name))
    return f"{local:%a} {local.day} {local:%b %H:%M} {local.tzname()}"


# --- which schedule an agent has -------------------------------------------------------------


def plan_for(agent: Agent, person) -> Planned | None:
    """Return when the agent's implementation says it runs for this person, or None."""
    spec = REGISTRY.get(agent.kind)
    return planned(spec, agent) if spec is not None else None


def rule_for(plan: Planned, zone_name: str, anchor: datetime) -> str:
    """Return the RFC 5545 text of a plan; raise recurrence.RuleError if it has none."""
    if isinstance(plan.schedule, dict):
        return recurrence.to_rule(plan.schedule, zone_name, anchor=anchor)
    return recurrence.check_rule(plan.schedule, zone_name)


def set_schedule(agent: Agent, person, plan: Planned, *, now: datetime | None = None) -> Schedule:
    """Create the person's schedule of this agent, or change it to this plan (a paused one
    stays paused); return it."""
    now = now or timezone.now()
    zone_name = plan.time_zone or zone_of(person).key
    with transaction.atomic():
        schedule = Schedule.objects.select_for_update().filter(agent=agent, owner=person).first()
        # An existing schedule keeps its anchor: saving the same plan again changes nothing.
        rule = rule_for(plan, zone_name, schedule.created_at if schedule else now)
        if schedule is None:
            schedule = Schedule(agent=agent, owner=person)
        elif (schedule.rule, schedule.time_zone) == (rule, zone_name):
            if (schedule.description, schedule.config) != (plan.description, plan.config):
                schedule.description, schedule.config = plan.description, plan.config
                schedule.save(update_fields=["description", "config", "updated_at"])
            return schedule
        schedule.rule, schedule.time_zone = rule, zone_name
        schedule.description, schedule.config = plan.description, plan.config
        schedule.next_run_at = recurrence.next_slot(rule, zone_name, now)
        schedule.save()
    jobs.wake_on_commit("schedules")
    return schedule


def sync_agent(sender, instance: Agent, **kwargs) -> None:
    """After an agent with an owner is saved: keep its owner's schedule in step with what
    its row says (`post_save` of Agent; the wizard's agents carry their trigger)."""
    if instance.is_draft or instance.owner_id is None:
        return
    plan = plan_for(instance, instance.owner)
    if plan is not None:
        set_schedule(instance, instance.owner, plan)


# --- firing ----------------------------------------------------------------------------------


def fire_due(now: datetime | None = None, limit: int = CLAIM_LIMIT):
    """Claim the schedules whose slot is due and start their runs; return the turns started
    and when the next slot falls due."""
    now = now or timezone.now()
    due = Schedule.objects.filter(paused=False, next_run_at__lte=now)
    started: list[int] = []
    ids = None
    # Looked for outside a transaction first: on SQLite opening one takes the write lock.
    if limit > 0 and due.exists():
        with transaction.atomic():
            ids = lock_due(due, order_by=("next_run_at", "pk"), limit=limit)
            for schedule in Schedule.objects.filter(pk__in=ids).select_related("agent"):
                try:
                    with transaction.atomic():
                        turn_id = _fire(schedule, now)
                except Exception:
                    logger.exception("firing schedule %s failed; trying again later", schedule.pk)
                    retry = now + timedelta(seconds=settings.RECOVERY_SWEEP_SECONDS)
                    Schedule.objects.filter(pk=schedule.pk).update(next_run_at=retry)
                    continue
                if turn_id is not None:
                    started.append(turn_id)
    if len(started) >= limit:
        return started, now  # more may be due
    if ids == []:
        # Due, but another runner is firing them right now: until it commits they still look
        # due, so look again a little later rather than in a busy loop.
        return started, now + timedelta(seconds=CONTENDED_SECONDS)
    later = Schedule.objects.filter(paused=False).aggregate(next_due=Min("next_run_at"))
    return started, later["next_due"]


def _fire(schedule: Schedule, now: datetime) -> int | None:
    """Inside the claim's transaction: run (or skip) the schedule's due slots once."""
    rule, zone_name = schedule.rule, schedule.time_zone
    slots = recurrence.slots_between(rule, zone_name, schedule.next_run_at, now)
    following = recurrence.next_slot(rule, zone_name, now)
    mine = Schedule.objects.filter(pk=schedule.pk, next_run_at=schedule.next_run_at, paused=False)
    if not mine.update(next_run_at=following) or not slots:
        return None  # another runner took it (SQLite), or a changed rule has no slot here
    latest = slots[-1]
    previous = schedule.runs.exclude(kind=ScheduledRun.Kind.SKIPPED).select_related("turn").first()
    if previous is not None and previous.turn is not None and previous.turn.status in BUSY:
        what = "slot" if len(slots) == 1 else f"{len(slots)} slots"
        ScheduledRun.objects.create(
            schedule=schedule,
            slot_at=latest,
            kind=ScheduledRun.Kind.SKIPPED,
            missed=len(slots),
            note=f"Skipped the {what} of {slot_label(latest, zone_name)}: the run of "
            f"{slot_label(previous.slot_at, zone_name)} was {BUSY[previous.turn.status]}.",
        )
        return None
    late = (now - latest).total_seconds() > settings.SCHEDULE_LATE_SECONDS
    if len(slots) > 1 or late:
        missed = (
            f"{len(slots)} scheduled runs were missed, {slot_label(slots[0], zone_name)} to "
            f"{slot_label(latest, zone_name)}"
            if len(slots) > 1
            else f"the run of {slot_label(latest, zone_name)} was missed"
        )
        heading = (
            f"Catch-up run, {slot_label(now, zone_name)}: {missed} while no runner was up, "
            "so this one run stands for them."
        )
        kind = ScheduledRun.Kind.CATCH_UP
    else:
        heading = f"Scheduled run, {slot_label(latest, zone_name)}"
        kind = ScheduledRun.Kind.SCHEDULED
    turn = _start_turn(schedule, heading)
    ScheduledRun.objects.create(
        schedule=schedule,
        slot_at=latest,
        kind=kind,
        turn=turn,
        missed=len(slots) if kind == ScheduledRun.Kind.CATCH_UP else 0,
    )
    return turn.pk


def run_now(schedule: Schedule, now: datetime | None = None) -> Turn:
    """Start a run of the schedule's agent at once (Run now), whatever its slots say."""
    now = now or timezone.now()
    with transaction.atomic():
        heading = f"Run now, {slot_label(now, schedule.time_zone)}"
        turn = _start_turn(schedule, heading)
        ScheduledRun.objects.create(
            schedule=schedule, slot_at=now, kind=ScheduledRun.Kind.MANUAL, turn=turn
        )
    return turn


def _start_turn(schedule: Schedule, heading: str) -> Turn:
    """Queue a turn with this heading in the schedule's Runs conversation (made if need be)."""
    conversation = None
    if schedule.conversation_id is not None:
        conversation = Conversation.objects.filter(pk=schedule.conversation_id).first()
    if conversation is None:
        conversation = Conversation.objects.create(
            owner_id=schedule.owner_id, agent_id=schedule.agent_id, title=RUNS_TITLE
        )
        Schedule.objects.filter(pk=schedule.pk).update(conversation=conversation)
        schedule.conversation = conversation
    return conversation.add_turn(heading, scheduled=True, then=_started)


def _started(turn: Turn) -> None:
    """After the commit: show the run's heading in the open tabs of Runs, and get it run."""
    push_html_soon(turn.conversation_id, fragments.render_turn(turn))
    turn_queued(turn.pk)


# --- the person's controls -------------------------------------------------------------------


def pause(schedule: Schedule) -> None:
    """Stop future slots at once (a run already started carries on)."""
    Schedule.objects.filter(pk=schedule.pk).update(paused=True, updated_at=timezone.now())


def resume(schedule: Schedule, now: datetime | None = None) -> None:
    """Run again from the next slot on: the slots of the pause are not caught up."""
    now = now or timezone.now()
    following = recurrence.next_slot(schedule.rule, schedule.time_zone, now)
    Schedule.objects.filter(pk=schedule.pk).update(
        paused=False, next_run_at=following, updated_at=now
    )
    jobs.wake_on_commit("schedules")


OUTCOMES = {
    Turn.Status.QUEUED: "starting",
    Turn.Status.RUNNING: "running now",
    Turn.Status.WAITING: "waiting for your answer",
    Turn.Status.DONE: "done",
    Turn.Status.FAILED: "failed",
    Turn.Status.STOPPED: "stopped",
}


@dataclass(frozen=True)
class Overview:
    """What the agent page says about a person's schedule of an agent."""

    schedule: Schedule | None
    plan: Planned | None  # what the agent offers, for a person who has no schedule yet
    upcoming: list[str]
    last: ScheduledRun | None
    last_label: str = ""
    last_outcome: str = ""
    skipped: tuple[str, ...] = ()


def overview(agent: Agent, person, now: datetime | None = None) -> Overview | None:
    """Return the schedule panel of the agent page, or None for an agent that never runs on
    its own."""
    now = now or timezone.now()
    schedule = Schedule.objects.filter(agent=agent, owner=person).first()
    plan = plan_for(agent, person)
    if schedule is None:
        return None if plan is None else Overview(None, plan, [], None)
    upcoming = []
    if not schedule.paused and schedule.next_run_at is not None:
        slots = recurrence.slots_after(schedule.rule, schedule.time_zone, now, UPCOMING)
        upcoming = [slot_label(slot, schedule.time_zone) for slot in slots]
    runs = list(schedule.runs.select_related("turn")[:10])
    last = next((run for run in runs if run.kind != ScheduledRun.Kind.SKIPPED), None)
    skipped = tuple(run.note for run in runs[:5] if run.kind == ScheduledRun.Kind.SKIPPED)
    if last is None:
        return Overview(schedule, plan, upcoming, None, skipped=skipped)
    outcome = OUTCOMES.get(last.turn.status, "") if last.turn else "removed"
    if last.turn and last.turn.status == Turn.Status.FAILED and last.turn.error:
        outcome = f"failed: {last.turn.error}"
    label = slot_label(last.slot_at, schedule.time_zone)
    return Overview(schedule, plan, upcoming, last, label, outcome, skipped)


def render_panel(agent: Agent, person) -> str:
    """Return the agent page's schedule panel, to replace the one an open tab shows (an agent
    that has just scheduled itself, or been created); "" for one that never runs on its own."""
    panel = overview(agent, person)
    if panel is None:
        return ""
    context = {"agent": agent, "panel": panel, "oob": True}
    return render_to_string("playground/schedule_panel.html", context)


# --- the schedules job -----------------------------------------------------------------------


async def fire_step() -> float | None:
    """Fire what is due; return the seconds until the next slot (the schedules job's step)."""
    _, next_due = await in_db(fire_due)()
    return None if next_due is None else (next_due - timezone.now()).total_seconds()

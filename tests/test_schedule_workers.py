"""Schedules on the real stacks: two `worker`s on PostgreSQL fire each slot exactly once,
a worker SIGKILLed mid-run leaves its slot to one turn that another worker finishes, and an
embedded server started after downtime gives the missed slots one catch-up run."""

import sqlite3
from datetime import UTC, datetime, timedelta

import pytest

from playground.schedules import recurrence
from tests.support.live_server import LiveServer, wait_for
from tests.test_scaleout import (
    PostgresDatabase,
    Worker,
    clear_redis_prefix,
    prepare,
    require_services,
    scaleout_env,
)


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    require_services()
    workdir = tmp_path_factory.mktemp("schedules")
    database = PostgresDatabase()
    env = scaleout_env(database, workdir)
    (workdir / "web").mkdir()
    server = LiveServer(workdir / "web", env)  # for `manage.py`: the workers do the work
    try:
        prepare(server)
        yield server, database, workdir
    finally:
        database.drop()
        clear_redis_prefix(env["REDIS_PREFIX"])


def add_schedules(server: LiveServer, kind: str, rule: str, count: int = 1, slug: str = "") -> None:
    """Give alice `count` agents of this kind (slugs `slug`-0, -1…; default: the kind), each
    on this rule (RFC 5545, UTC)."""
    server.manage(
        "shell",
        "-c",
        "from django.contrib.auth.models import User\n"
        "from playground.schedules import scheduler\n"
        "from playground.runs.agents import Planned\n"
        "from playground.runs.models import Agent\n"
        "alice = User.objects.get(username='alice')\n"
        f"for n in range({count}):\n"
        f"    row = Agent.objects.create(slug=f'{slug or kind}-{{n}}', name='{kind}',\n"
        f"                               kind='{kind}')\n"
        f"    scheduler.set_schedule(row, alice, Planned({rule!r}, 'UTC'))\n",
    )


def dtstart(moment: datetime) -> str:
    return f"DTSTART:{moment.astimezone(UTC):%Y%m%dT%H%M%S}Z"


def runs_of(database, kind: str) -> dict[int, list[tuple]]:
    rows = database.query(
        "SELECT s.id, r.slot_at, r.kind, r.missed, r.turn_id FROM playground_scheduledrun r "
        "JOIN playground_schedule s ON s.id = r.schedule_id JOIN playground_agent a "
        "ON a.id = s.agent_id WHERE a.kind = %s ORDER BY r.slot_at",
        (kind,),
    )
    by_schedule: dict[int, list[tuple]] = {}
    for schedule_id, *run in rows:
        by_schedule.setdefault(schedule_id, []).append(tuple(run))
    return by_schedule


def scheduled_turns(database, kind: str) -> list[tuple]:
    return database.query(
        "SELECT t.id, t.status, t.text, (SELECT count(*) FROM playground_message m "
        "WHERE m.turn_id = t.id) FROM playground_turn t JOIN playground_conversation c "
        "ON c.id = t.conversation_id JOIN playground_agent a ON a.id = c.agent_id "
        "WHERE t.scheduled AND a.kind = %s",
        (kind,),
    )


def test_two_workers_fire_each_slot_of_twenty_schedules_exactly_once(stack):
    server, database, workdir = stack
    workers = [
        Worker(server.env, workdir / f"ticker-{n}.log", "--concurrency", "20") for n in (1, 2)
    ]
    try:
        first = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=20)
        # Twenty schedules due at the same instants, every 3 s: the two workers race for each.
        rule = f"{dtstart(first)}\nRRULE:FREQ=SECONDLY;INTERVAL=3"
        add_schedules(server, "slot-reporter", rule, count=20)

        def three_slots_each() -> bool:
            runs = runs_of(database, "slot-reporter").values()
            return len(runs) == 20 and min(len(each) for each in runs) >= 3

        wait_for(three_slots_each, timeout=120)
        database.query("UPDATE playground_schedule SET paused = true RETURNING id")
        wait_for(
            lambda: (
                {status for _, status, _, _ in scheduled_turns(database, "slot-reporter")}
                == {"done"}
            ),
            timeout=60,
        )
    finally:
        for worker in workers:
            worker.stop()

    runs = runs_of(database, "slot-reporter")
    assert len(runs) == 20
    for schedule_runs in runs.values():
        slots = [slot for slot, _, _, _ in schedule_runs]
        assert len(slots) == len(set(slots)) >= 3
        # Every slot from the first to the last is accounted for once: run, skipped, or one
        # of those a catch-up stood for.
        expected = recurrence.slots_between(rule, "UTC", slots[0], slots[-1])
        assert sum(max(missed, 1) for _, _, missed, _ in schedule_runs) == len(expected)
    turns = scheduled_turns(database, "slot-reporter")
    started = [turn for runs_ in runs.values() for *_, turn in runs_ if turn is not None]
    assert sorted(started) == sorted(turn_id for turn_id, *_ in turns)
    assert {said for *_, said in turns} == {1}  # each turn ran once: one message each
    for n in (1, 2):
        log = (workdir / f"ticker-{n}.log").read_text()
        assert "Traceback" not in log and "failed" not in log, log


def test_a_worker_killed_mid_run_leaves_its_slot_one_turn_that_another_finishes(stack):
    server, database, workdir = stack
    soon = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=8)
    # The first slot in seconds, the next 30 s later.
    rule = f"{dtstart(soon - timedelta(seconds=30))}\nRRULE:FREQ=SECONDLY;INTERVAL=30"
    started = workdir / "started"
    add_schedules(server, "slow-step", rule)
    # The first slot is the one after the schedule was made: `soon`, unless making it took
    # longer than 8 s on a loaded machine, and then the one 30 s later.
    [(soon,)] = database.query(
        "SELECT s.next_run_at FROM playground_schedule s JOIN playground_agent a "
        "ON a.id = s.agent_id WHERE a.kind = 'slow-step'"
    )  # the module's other test leaves twenty schedules of its own
    # Both workers run before the slot is due: the one left must take the run over within the
    # 30 s to the next slot, and a worker's start (seconds on a loaded machine) is no part of it.
    workers = [Worker(server.env, workdir / f"kill-{n}.log") for n in (1, 2)]
    try:
        # The slow step's first run never ends by itself: the worker it started in dies in it.
        wait_for(lambda: started.exists() and len(started.read_text().split()) == 1, timeout=60)
        [ran_it] = [w for w in workers if w.process.pid == int(started.read_text().split()[0])]
        ran_it.kill()
        wait_for(lambda: [s for _, s, _, _ in scheduled_turns(database, "slow-step")] == ["done"])
        # The next slot fires as usual, from the worker left.
        wait_for(lambda: len(scheduled_turns(database, "slow-step")) == 2, timeout=60)
        wait_for(lambda: {s for _, s, _, _ in scheduled_turns(database, "slow-step")} == {"done"})
    finally:
        for worker in workers:
            worker.stop()
    (schedule_runs,) = runs_of(database, "slow-step").values()
    assert [kind for _, kind, _, _ in schedule_runs] == ["scheduled", "scheduled"]
    assert schedule_runs[0][0] == soon
    assert len(started.read_text().split()) == 3  # killed, recovered, the next slot


def test_an_embedded_server_started_after_downtime_gives_one_catch_up_run(tmp_path):
    server = LiveServer(tmp_path, {"AGENT_MODULES": "tests.support.scaleout_agents"})
    server.prepare({"alice": "alice-password-1"})
    # Every 5 minutes since 21 minutes ago; the last slot run was the first one.
    since = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=21)
    rule = f"{dtstart(since)}\nRRULE:FREQ=MINUTELY;INTERVAL=5"
    add_schedules(server, "slot-reporter", rule)
    with sqlite3.connect(server.db_path) as db:
        db.execute(
            "UPDATE playground_schedule SET next_run_at = ?",
            [(since + timedelta(minutes=5)).strftime("%Y-%m-%d %H:%M:%S")],
        )
    server.start()
    try:

        def said():
            with sqlite3.connect(server.db_path) as db:
                return db.execute(
                    "SELECT m.text, r.kind, r.missed FROM playground_message m JOIN "
                    "playground_scheduledrun r ON r.turn_id = m.turn_id"
                ).fetchall()

        (text, kind, missed), *more = wait_for(said, timeout=30)
    finally:
        server.stop()
    assert more == [] and kind == "catch_up" and missed == 4
    assert text.startswith("Ran: Catch-up run, ")
    assert ": 4 scheduled runs were missed, " in text
    assert text.endswith("while no runner was up, so this one run stands for them.")


def test_a_schedule_made_in_another_process_wakes_the_workers_firer(stack):
    """A worker's firer sleeps until the next slot it knows of (here: none, so the whole
    RECOVERY_SWEEP_SECONDS, 300 s). A schedule made by another process (as a web process makes
    them) wakes it through PostgreSQL's NOTIFY, so the new schedule's first slot fires on time,
    not at the firer's next look."""
    server, database, workdir = stack
    database.query("UPDATE playground_schedule SET paused = true RETURNING id")  # the module's
    env = {**server.env, "RECOVERY_SWEEP_SECONDS": "300"}
    worker = Worker(env, workdir / "woken.log")
    try:
        soon = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=5)
        rule = f"{dtstart(soon)}\nRRULE:FREQ=SECONDLY;INTERVAL=20"
        add_schedules(server, "slot-reporter", rule, slug="woken")
        runs = (
            "SELECT r.slot_at, r.kind FROM playground_scheduledrun r JOIN playground_schedule s "
            "ON s.id = r.schedule_id JOIN playground_agent a ON a.id = s.agent_id "
            "WHERE a.slug = 'woken-0' ORDER BY r.slot_at"
        )
        # Made after the worker looked: only the notification brings its first slot (`soon`,
        # or 20 s later if making it took longer on a loaded machine) within the 300 s.
        wait_for(lambda: database.query(runs), timeout=60)
    finally:
        worker.stop()
    slot, kind = database.query(runs)[0]
    assert kind == "scheduled" and (slot - soon).total_seconds() % 20 == 0

"""`manage.py worker` runs many turns at once and stops cleanly: on SIGTERM it lets running
turns finish within the grace period and leaves the rest queued for the next worker."""

import signal
from functools import partial

import pytest

from tests.support.live_server import LiveServer, wait_for
from tests.test_scaleout import (
    Person,
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
    workdir = tmp_path_factory.mktemp("worker")
    database = PostgresDatabase()
    env = scaleout_env(database, workdir)
    (workdir / "web").mkdir()
    server = LiveServer(workdir / "web", env)
    try:
        prepare(server)
        server.start()
        yield server, database, workdir
    finally:
        server.stop()
        database.drop()
        clear_redis_prefix(env["REDIS_PREFIX"])


def statuses(database: PostgresDatabase) -> list[str]:
    return [status for (status,) in database.query("SELECT status FROM playground_turn")]


def its_turn_waits(database: PostgresDatabase, conversation: int) -> bool:
    query = "SELECT status FROM playground_turn WHERE conversation_id = %s"
    return database.query(query, (conversation,)) == [("waiting",)]


def test_one_worker_runs_many_turns_at_once_then_stops_and_leaves_the_rest_queued(stack):
    server, database, workdir = stack
    person = Person(server)
    for number in range(6):
        conversation = person.start_conversation(server, "gated")
        person.post(server, f"/c/{conversation}/send", {"text": f"turn {number}"})

    gated = workdir / "gated"
    worker = Worker(server.env, workdir / "worker-1.log", "--concurrency", "4", "--grace", "1")
    # Four turns wait at their gate together: none holds the others up.
    wait_for(lambda: gated.exists() and len(gated.read_text().split("\n")) - 1 == 4, timeout=30)
    assert sorted(statuses(database)) == ["queued"] * 2 + ["running"] * 4

    worker.process.send_signal(signal.SIGTERM)
    assert worker.process.wait(timeout=30) == 0
    assert statuses(database) == ["queued"] * 6  # nothing lost, nothing left "running"

    (workdir / "release").touch()
    replacement = Worker(server.env, workdir / "worker-2.log", "--concurrency", "20")
    try:
        wait_for(lambda: statuses(database) == ["done"] * 6, timeout=60)
    finally:
        replacement.stop()
    said = sorted(text for (text,) in database.query("SELECT text FROM playground_message"))
    assert said == [f"Through the gate: turn {number}." for number in range(6)]


def test_a_queued_turn_wakes_a_worker_that_would_not_poll_for_a_minute(stack):
    server, database, workdir = stack
    env = {**server.env, "RECOVERY_SWEEP_SECONDS": "60"}  # no sweep pass wakes it either
    worker = Worker(env, workdir / "worker-3.log")
    person = Person(server)
    try:
        for number in range(2):  # the second is queued while the worker sits idle
            conversation = person.start_conversation(server, "deploy-assistant")
            person.post(server, f"/c/{conversation}/send", {"text": f"Ship {number}"})
            # The agent asks its first question and the turn waits: seconds, not a minute.
            wait_for(partial(its_turn_waits, database, conversation), timeout=15)
    finally:
        worker.stop()

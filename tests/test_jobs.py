"""The one claim every job uses (playground.jobs.claim): each due row is claimed by one process
however many claim at once, a claim killed before its commit leaves its rows due, and a lease
that ran out is claimed again while its old holder's write-back is refused. (A wake across
processes and due rows found at start: tests/test_worker.py, tests/test_schedule_workers.py.)"""

import signal
import subprocess
import sys
from datetime import timedelta

import pytest
from django.utils import timezone

from playground.jobs.claim import claim
from playground.runs.models import Turn
from tests.support.live_server import BASE_DIR, wait_for
from tests.support.runtime_helpers import start
from tests.test_scaleout import REDIS_URL, PostgresDatabase, require_services

SEED = """
from django.contrib.auth.models import User
from playground.runs.models import Turn
from tests.support.runtime_helpers import start
owner = User.objects.create_user("owner")
Turn.objects.bulk_create(
    Turn(conversation=start(owner, "schema-tester"), index=0, text=str(n)) for n in range({n})
)
"""
CLAIMER = """
import os, time
from playground.jobs.claim import claim
from playground.runs.models import Turn
print("ready", flush=True)
while os.environ.get("GO") and not os.path.exists(os.environ["GO"]):
    time.sleep(0.01)
got = []
while True:
    queued = Turn.objects.filter(status="queued")
    _, ids = claim(queued, order_by=("pk",), limit=5, token_field="run_token", status="running")
    if not ids:
        break
    got += ids
print("claimed", *got, flush=True)
"""
HOLDER = """
import time
from django.db import transaction
from playground.jobs.claim import lock_due
from playground.runs.models import Turn
with transaction.atomic():
    queued = Turn.objects.filter(status="queued")
    ids = lock_due(queued, order_by=("pk",), limit=10)
    Turn.objects.filter(pk__in=ids).update(status="running", run_token="held")
    print("held", *ids, flush=True)
    time.sleep(600)
"""


@pytest.fixture
def database():
    require_services()
    database = PostgresDatabase()
    yield database
    database.drop()


def shell(database: PostgresDatabase, code: str, log=subprocess.PIPE, **extra) -> subprocess.Popen:
    env = {
        **extra,
        "DATABASE_URL": database.url,
        "REDIS_URL": REDIS_URL,
        "JOBS_RUN_IN": "workers",
        "PATH": "/usr/bin:/bin",
    }
    command = [sys.executable, "manage.py", "shell", "-c", code]
    return subprocess.Popen(command, cwd=BASE_DIR, env=env, stdout=log, text=True)


def claimed_by(process: subprocess.Popen) -> list[int]:
    out, _ = process.communicate(timeout=120)
    assert process.returncode == 0
    return pks_said(out, "claimed")


def pks_said(out: str, word: str) -> list[int] | None:
    """Return the pks on the line of `out` that starts with `word` (None: no such line yet)."""
    line = next((line for line in out.splitlines() if line.startswith(word)), None)
    return None if line is None else [int(pk) for pk in line.split()[1:]]


def all_turns(database: PostgresDatabase) -> list[int]:
    return [pk for (pk,) in database.query("SELECT id FROM playground_turn ORDER BY id")]


def test_two_processes_claiming_at_once_take_each_row_once(database, tmp_path):
    assert shell(database, SEED.format(n=300)).wait(timeout=120) == 0
    go, logs = tmp_path / "go", [tmp_path / "first.log", tmp_path / "second.log"]
    claimers = []
    for path in logs:
        with open(path, "w") as log:
            claimers.append(shell(database, CLAIMER, log=log, GO=str(go)))
    for path in logs:
        wait_for(lambda p=path: "ready" in p.read_text(), timeout=60)
    go.touch()  # both start claiming together
    for claimer in claimers:
        assert claimer.wait(timeout=120) == 0
    mine, theirs = (pks_said(path.read_text(), "claimed") for path in logs)

    assert set(mine).isdisjoint(theirs)
    assert sorted(mine + theirs) == all_turns(database)
    assert mine and theirs  # both claimed: they ran at once


def test_a_claim_killed_before_its_commit_leaves_its_rows_to_the_next(database, tmp_path):
    assert shell(database, SEED.format(n=30)).wait(timeout=120) == 0
    log = tmp_path / "holder.log"
    with open(log, "w") as out:
        holder = shell(database, HOLDER, log=out)
    try:
        held = wait_for(
            lambda: pks_said(log.read_text(), "held"), timeout=60, message=log.read_text
        )
        others = claimed_by(shell(database, CLAIMER))  # skips the locked rows, waits for none
        assert sorted(others + held) == all_turns(database) and len(held) == 10
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=10)
    assert claimed_by(shell(database, CLAIMER)) == held  # uncommitted: due again


@pytest.mark.django_db(transaction=True)
def test_a_lease_that_ran_out_is_claimed_again_and_its_old_holder_is_refused(alice):
    Turn.objects.create(conversation=start(alice, "schema-tester"), index=0, text="hi")
    now = timezone.now()

    def lease(at):
        due = Turn.objects.filter(status=Turn.Status.QUEUED, updated_at__lte=at)
        lease_end = at + timedelta(seconds=30)
        return claim(due, order_by=("pk",), limit=10, token_field="run_token", updated_at=lease_end)

    old_token, first = lease(now + timedelta(seconds=1))
    assert lease(now + timedelta(seconds=2))[1] == []  # leased: not due
    new_token, again = lease(now + timedelta(seconds=60))  # the lease ran out
    assert first == again and new_token != old_token
    write_back = Turn.objects.filter(pk__in=first, run_token=old_token)
    assert write_back.update(status=Turn.Status.DONE) == 0

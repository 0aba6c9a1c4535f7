"""The notification queue on PostgreSQL: two `worker --only notices` processes share it, and each
person gets each email once (one email listing their questions, not one per question)."""

import os
import signal
import subprocess
import sys

import psycopg
import pytest

from tests.support.live_server import BASE_DIR, wait_for
from tests.support.smtp_support import SmtpServer, text_of
from tests.test_scaleout import POSTGRES_URL, REDIS_URL, PostgresDatabase

PEOPLE, QUESTIONS_EACH = 30, 3

# All of it in one transaction, every question due at the same moment: each person's three are
# one batch however slowly a loaded machine creates them (created over more than the batch
# window, a person's third question rightly went in a mail of its own: ci1).
SEED = f"""
from datetime import timedelta
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from elicitation.contract import parse_request
from elicitation.models import Part
from playground.notify.models import Notice
from playground.runs.models import Agent, Conversation, Turn

transaction.set_autocommit(False)
agent = Agent.objects.create(slug="deployer", name="Deployer", kind="echo")
for n in range({PEOPLE}):
    person = User.objects.create_user(f"person{{n}}", email=f"person{{n}}@example.com")
    conversation = Conversation.objects.create(owner=person, agent=agent)
    turn = Turn.objects.create(conversation=conversation, index=0, text="go", status="waiting")
    for q in range({QUESTIONS_EACH}):
        payload = {{"message": f"Deploy service {{q}} for person {{n}}?",
                   "requestedSchema": {{"type": "object", "properties": {{}}}}}}
        Part.objects.create(
            conversation=conversation, turn=turn, call_index=q, tool_call_id=f"c{{q}}",
            render_kind="elicitation", payload=payload,
            normalized=parse_request(payload).to_dict(), allowed_actions=["accept", "cancel"],
        )
Notice.objects.update(due_at=timezone.now() + timedelta(seconds=2))
transaction.commit()
"""


@pytest.fixture
def database():
    try:
        psycopg.connect(f"{POSTGRES_URL}/postgres", connect_timeout=3).close()
    except Exception as error:
        pytest.fail(f"this test needs PostgreSQL on 127.0.0.1: {error}")
    database = PostgresDatabase()
    yield database
    database.drop()


def test_two_workers_on_postgresql_send_each_email_once(database, tmp_path):
    smtp = SmtpServer()
    smtp.start()
    env = {
        **os.environ,
        "DATABASE_URL": database.url,
        "REDIS_URL": REDIS_URL,
        "REDIS_PREFIX": f"test-{database.name}",
        "JOBS_RUN_IN": "workers",
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(smtp.port),
        "NOTIFY_AFTER_SECONDS": "2",
        "NOTIFY_BATCH_SECONDS": "2",
        "RECOVERY_SWEEP_SECONDS": "0.5",
    }
    manage = [sys.executable, "manage.py"]
    subprocess.run(
        [*manage, "migrate", "--noinput"], cwd=BASE_DIR, env=env, check=True, capture_output=True
    )
    logs = [tmp_path / "worker-1.log", tmp_path / "worker-2.log"]
    workers = []
    try:
        for log_path in logs:
            with open(log_path, "w") as log:
                workers.append(
                    subprocess.Popen(
                        [*manage, "worker", "--only", "notices"],
                        cwd=BASE_DIR,
                        env=env,
                        stdout=log,
                        stderr=subprocess.STDOUT,
                    )
                )
        for log_path in logs:
            wait_for(lambda p=log_path: "worker: running" in p.read_text(), timeout=120)
        subprocess.run(
            [*manage, "shell", "-c", SEED], cwd=BASE_DIR, env=env, check=True, capture_output=True
        )

        wait_for(lambda: len(smtp.mails) >= PEOPLE, timeout=120, message="mails not all sent")
        told = "SELECT count(*) FROM notify_notice WHERE told_at IS NOT NULL AND lease_token = ''"
        wait_for(lambda: database.query(told) == [(PEOPLE * QUESTIONS_EACH,)], timeout=60)
    finally:
        for worker in workers:
            worker.send_signal(signal.SIGTERM)
        for worker in workers:
            worker.wait(timeout=30)
        smtp.stop()

    recipients = sorted(mail["To"] for mail in smtp.mails)
    assert recipients == sorted(f"person{n}@example.com" for n in range(PEOPLE))
    for mail in smtp.mails:
        assert mail["Subject"] == f"{QUESTIONS_EACH} questions wait for your answer"
        person = mail["To"].split("@")[0].removeprefix("person")
        for q in range(QUESTIONS_EACH):
            assert f"Deploy service {q} for person {person}?" in text_of(mail)
    assert database.query("SELECT count(*) FROM notify_sent") == [(PEOPLE * QUESTIONS_EACH,)]
    for log_path in logs:
        assert "Traceback" not in log_path.read_text(), log_path.read_text()

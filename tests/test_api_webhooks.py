"""Webhooks against a real daphne and a local receiver: signed, tried again after a 500, sent
after a restart, and never sent twice at once by two web processes."""

import json
import sqlite3
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from playground.api.webhooks import signature
from tests.support.api_support import ASK
from tests.support.live_server import LiveClient, LiveServer, wait_for
from tests.test_scaleout import (
    PostgresDatabase,
    Worker,
    clear_redis_prefix,
    prepare,
    require_services,
    scaleout_env,
)

PASSWORD = "alice-password-1"  # as in tests.test_scaleout
QUICK_RETRIES = {"API_WEBHOOK_ALLOW_PRIVATE": "1", "API_WEBHOOK_BACKOFF": "0.2,0.2,0.2"}


class Receiver(ThreadingHTTPServer):
    """Answers 500 to the first `failures` POSTs of each delivery (by Webhook-Id) and 200 after.

    Keeps what it was sent, and the most POSTs of one delivery it had in hand at once.
    """

    def __init__(self, failures: int = 1, hold_seconds: float = 0.0):
        self.failures = failures
        self.hold_seconds = hold_seconds
        self.received: list[tuple[dict, bytes]] = []
        self.lock = threading.Lock()
        self.in_hand: Counter[str] = Counter()
        self.most_at_once = 0
        super().__init__(("127.0.0.1", 0), ReceiverHandler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/hook"

    def posts_by_id(self) -> Counter[str]:
        with self.lock:
            return Counter(headers["Webhook-Id"] for headers, _ in self.received)


class ReceiverHandler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        receiver = self.server
        body = self.rfile.read(int(self.headers["Content-Length"]))
        webhook_id = self.headers["Webhook-Id"]
        with receiver.lock:
            receiver.received.append((dict(self.headers), body))
            tries = sum(
                1 for headers, _ in receiver.received if headers["Webhook-Id"] == webhook_id
            )
            receiver.in_hand[webhook_id] += 1
            receiver.most_at_once = max(receiver.most_at_once, receiver.in_hand[webhook_id])
        # A slow receiver, so that a second sender of the same attempt would overlap this one.
        time.sleep(receiver.hold_seconds)
        with receiver.lock:
            receiver.in_hand[webhook_id] -= 1  # before answering: the sender still waits on us
        self.send_response(500 if tries <= receiver.failures else 200)
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


def serve(receiver: Receiver):
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    return receiver


@pytest.fixture
def receiver():
    receiver = serve(Receiver())
    yield receiver
    receiver.shutdown()


@pytest.fixture(scope="module")
def prepared(tmp_path_factory) -> Path:
    """A migrated, seeded database with alice in it, copied for each test (seconds to make)."""
    workdir = tmp_path_factory.mktemp("prepared")
    LiveServer(workdir).prepare({"alice": PASSWORD})
    return workdir / "db.sqlite3"


def live_server(workdir: Path, prepared: Path, env: dict) -> LiveServer:
    server = LiveServer(workdir, env=env)
    with sqlite3.connect(prepared) as source, sqlite3.connect(server.db_path) as copy:
        source.backup(copy)
    server.start()
    return server


@pytest.fixture
def server(tmp_path, prepared):
    server = live_server(tmp_path, prepared, QUICK_RETRIES)
    yield server
    server.stop()


def ask_and_answer(url: str, *servers: LiveServer, count: int = 1) -> tuple[str, int, list[int]]:
    """Through a new token of alice's that posts to `url`, ask `count` questions, and answer
    them through each server in turn; return the signing secret, the conversation and the
    questions' ids."""
    script = (
        "from django.contrib.auth.models import User\n"
        "from playground.api.tokens import create_token, signing_secret\n"
        f"token, key = create_token(User.objects.get(username='alice'), 'hook', {url!r})\n"
        "print(key, signing_secret(token))\n"
    )
    key, secret = servers[0].manage("shell", "-v0", "-c", script).split()
    api = httpx.Client(
        base_url=servers[0].url + "/api/v1", headers={"Authorization": f"Bearer {key}"}, timeout=30
    )
    conversation_id = api.post("/conversations", json={"agentName": "Deploy bot"}).json()["id"]
    asked = [api.post(f"/conversations/{conversation_id}/requests", json=ASK) for _ in range(count)]
    part_ids = [response.json()["id"] for response in asked]
    people = [LiveClient(server, "alice", PASSWORD) for server in servers]
    for n, part_id in enumerate(part_ids):
        answer = {"action": "accept", "answer.env": "staging"}
        assert people[n % len(people)].post(f"/parts/{part_id}/settle", answer)[0] == 200
    return secret, conversation_id, part_ids


def deliveries(query) -> list[tuple]:
    return query("SELECT status, attempts FROM api_webhookdelivery ORDER BY id")


def attempts(query) -> list[int]:
    return [code for (code,) in query("SELECT status_code FROM api_deliveryattempt ORDER BY id")]


def test_a_settled_request_is_posted_signed_and_retried_after_a_500(server, receiver):
    secret, conversation_id, (part_id,) = ask_and_answer(receiver.url, server)

    # Waits for the delivery's own state, which is what it asserts: the receiver has the
    # retry (and answered it) a moment before the sender writes the attempt and the state
    # down. Waiting on the receiver alone once read the delivery in between (issue 35).
    wait_for(lambda: deliveries(server.query) == [("delivered", 2)], message="not delivered")
    assert attempts(server.query) == [500, 200]
    assert len(receiver.received) == 2
    for headers, body in receiver.received:
        timestamp = headers["Webhook-Timestamp"]
        assert headers["Webhook-Signature"] == signature(secret, timestamp, body)
    first, retry = (headers["Webhook-Id"] for headers, _ in receiver.received)
    assert first == retry
    assert json.loads(receiver.received[-1][1]) == {
        "requestId": part_id,
        "conversationId": conversation_id,
        "state": "submitted",
        "envelope": {"action": "accept", "content": {"env": "staging"}},
    }


def test_a_retry_that_fell_due_while_the_server_was_down_is_sent_once_it_is_back(
    tmp_path, prepared, receiver
):
    # A retry an hour away, so the server is surely killed before it is due.
    env = {"API_WEBHOOK_ALLOW_PRIVATE": "1", "API_WEBHOOK_BACKOFF": "3600"}
    server = live_server(tmp_path, prepared, env)
    try:
        ask_and_answer(receiver.url, server)
        wait_for(lambda: deliveries(server.query) == [("pending", 1)], message="no first try")
        server.kill()
        # The hour passes while no server runs: the retry falls due.
        with sqlite3.connect(server.db_path) as db:
            db.execute("UPDATE api_webhookdelivery SET next_attempt_at = created_at")
        server.start()
        wait_for(lambda: deliveries(server.query) == [("delivered", 2)], message="no retry")
    finally:
        server.stop()

    first, retry = (headers["Webhook-Id"] for headers, _ in receiver.received)
    assert first == retry
    assert attempts(server.query) == [500, 200]


@pytest.fixture
def two_servers(tmp_path):
    """Two web processes on one PostgreSQL database (and Redis, as scale-out runs them); they
    run no job: the test starts the workers."""
    require_services()
    database = PostgresDatabase()
    env = scaleout_env(database, tmp_path, **QUICK_RETRIES)
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    servers = LiveServer(tmp_path / "a", env), LiveServer(tmp_path / "b", env)
    try:
        prepare(servers[0])
        for server in servers:
            server.start()
        yield servers, database
    finally:
        for server in servers:
            server.stop()
        database.drop()
        clear_redis_prefix(env["REDIS_PREFIX"])


def test_two_workers_never_send_the_same_attempt_at_once(two_servers, tmp_path):
    (server_a, server_b), database = two_servers
    receiver = serve(Receiver(failures=2, hold_seconds=0.1))
    workers = []
    try:
        ask_and_answer(receiver.url, server_a, server_b, count=6)
        time.sleep(1)  # web processes run no job: nothing goes out before a worker runs
        assert deliveries(database.query) == [("pending", 0)] * 6
        for number in range(2):
            log = tmp_path / f"worker-{number}.log"
            workers.append(Worker(server_a.env, log, "--only", "webhooks"))
        done = [("delivered", 3)] * 6
        wait_for(lambda: deliveries(database.query) == done, message="not all delivered")
    finally:
        for worker in workers:
            worker.stop()
        receiver.shutdown()

    assert receiver.most_at_once == 1
    # Each attempt went out once: as many POSTs per Webhook-Id as attempts written down.
    assert sorted(receiver.posts_by_id().values()) == [3] * 6
    written = database.query(
        "SELECT d.webhook_id, array_agg(a.status_code ORDER BY a.id) FROM api_deliveryattempt a "
        "JOIN api_webhookdelivery d ON d.id = a.delivery_id GROUP BY d.webhook_id"
    )
    assert sorted(str(webhook_id) for webhook_id, _ in written) == sorted(receiver.posts_by_id())
    assert [codes for _, codes in written] == [[500, 500, 200]] * 6

"""Scale-out: two daphne processes and a separate agent worker on PostgreSQL and Redis.

Each run gets a fresh PostgreSQL database and its own Redis key prefix, so it shares the
machine's servers with nothing else. Without them the tests fail: `.ci/run` starts them.
"""

import atexit
import functools
import os
import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import psycopg
import pytest
import redis
from websockets.exceptions import InvalidHandshake
from websockets.sync.client import connect

from tests.support.live_server import LiveServer, Worker, migrate, wait_for

POSTGRES_URL = os.environ.get("SCALEOUT_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432")
REDIS_URL = os.environ.get("SCALEOUT_REDIS_URL", "redis://127.0.0.1:6379/0")
USERNAME, PASSWORD = "alice", "alice-password-1"


def require_services() -> None:
    try:
        psycopg.connect(f"{POSTGRES_URL}/postgres", connect_timeout=3).close()
        redis.Redis.from_url(REDIS_URL, socket_timeout=3).ping()
    except Exception as error:
        pytest.fail(f"scale-out tests need PostgreSQL and Redis on 127.0.0.1: {error}")


def _admin(sql: str) -> None:
    with psycopg.connect(f"{POSTGRES_URL}/postgres", autocommit=True) as connection:
        connection.execute(sql)


@functools.cache
def _migrated_template() -> str:
    """Return a database with every migration applied, made once per test process, to copy.

    Applying the migrations took seconds of each scale-out test's setup; a copy (CREATE
    DATABASE ... TEMPLATE) takes a tenth of one. Nobody may connect to it: PostgreSQL copies
    a database only while no session is connected to it.
    """
    name = f"playground_template_{uuid.uuid4().hex[:12]}"
    _admin(f'CREATE DATABASE "{name}"')
    atexit.register(_admin, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    migrate(f"{POSTGRES_URL}/{name}")
    _admin(f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS false')
    return name


class PostgresDatabase:
    """A fresh database for one test run, dropped afterwards: migrated, unless `migrated` is
    False (an empty one, for what must start from nothing)."""

    def __init__(self, *, migrated: bool = True):
        self.name = f"playground_test_{uuid.uuid4().hex[:12]}"
        self.url = f"{POSTGRES_URL}/{self.name}"
        template = f' TEMPLATE "{_migrated_template()}"' if migrated else ""
        _admin(f'CREATE DATABASE "{self.name}"{template}')

    def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        with psycopg.connect(self.url) as connection:
            return connection.execute(sql, params).fetchall()

    def drop(self) -> None:
        _admin(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


def scaleout_env(database: PostgresDatabase, step_dir, **extra: str) -> dict:
    return {
        "DATABASE_URL": database.url,
        "REDIS_URL": REDIS_URL,
        "REDIS_PREFIX": f"test-{database.name}",
        "JOBS_RUN_IN": "workers",
        "AGENT_MODULES": "tests.support.scaleout_agents",
        "SCALEOUT_STEP_DIR": str(step_dir),
        # Short enough that a dead worker's turn is picked up within seconds.
        "RUN_HEARTBEAT_SECONDS": "0.5",
        "RUN_STALE_AFTER_SECONDS": "2",
        "RECOVERY_SWEEP_SECONDS": "0.5",
        **extra,
    }


def clear_redis_prefix(prefix: str) -> None:
    client = redis.Redis.from_url(REDIS_URL)
    for key in client.scan_iter(f"{prefix}*"):
        client.delete(key)


def prepare(server: LiveServer) -> None:
    """Migrate, seed and create the person (`seed` makes a login only with --local-login)."""
    server.prepare({USERNAME: PASSWORD})


class Person:
    """One logged-in person; the session lives in the database, so it works on every server."""

    def __init__(self, server: LiveServer):
        # Generous: logging in hashes a password, seconds on a busy 2-core machine.
        self.client = httpx.Client(base_url=server.url, timeout=30)
        page = self.client.get("/accounts/login/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
        login = {"username": USERNAME, "password": PASSWORD, "csrfmiddlewaretoken": token}
        assert self.client.post("/accounts/login/", data=login).status_code == 302

    def post(self, server: LiveServer, path: str, data: dict | None = None) -> httpx.Response:
        headers = {"X-CSRFToken": self.client.cookies["csrftoken"], "HX-Request": "true"}
        return self.client.post(server.url + path, data=data, headers=headers)

    def start_conversation(self, server: LiveServer, slug: str) -> int:
        response = self.client.post(
            server.url + f"/agents/{slug}/new",
            headers={"X-CSRFToken": self.client.cookies["csrftoken"]},
        )
        return int(re.search(r"/c/(\d+)/", response.headers["location"]).group(1))

    @contextmanager
    def open_tab(
        self, server: LiveServer, conversation_id: int, *, retry_for: float = 0
    ) -> Iterator["Tab"]:
        """Open the conversation's websocket as its page does (htmx retries a refused one)."""
        cookie = "; ".join(f"{name}={value}" for name, value in self.client.cookies.items())
        url = server.url.replace("http", "ws") + f"/ws/c/{conversation_id}/"

        def attempt():
            try:
                return connect(url, origin=server.url, additional_headers={"Cookie": cookie})
            except (OSError, InvalidHandshake):
                return None

        connection = attempt() if not retry_for else wait_for(attempt, timeout=retry_for)
        assert connection is not None, f"the websocket of conversation {conversation_id} failed"
        with connection as socket:
            yield Tab(socket)


class Tab:
    """An open conversation's websocket; keeps everything it receives."""

    def __init__(self, socket):
        self.socket = socket
        self.received: list[str] = [socket.recv(timeout=10)]  # the resync on connect

    def wait_for(self, pattern: str, timeout: float = 20) -> str:
        """Return the first fragment received from now on that matches `pattern`."""
        seen = len(self.received)
        while True:
            for fragment in self.received[seen:]:
                if re.search(pattern, fragment):
                    return fragment
            seen = len(self.received)
            self.received.append(self.socket.recv(timeout=timeout))

    def count(self, text: str) -> int:
        return sum(fragment.count(text) for fragment in self.received)


def settle_url(fragment: str) -> str:
    return re.search(r"/parts/\d+/settle", fragment).group(0)


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    require_services()
    workdir = tmp_path_factory.mktemp("scaleout")
    database = PostgresDatabase()
    env = scaleout_env(database, workdir)
    (workdir / "a").mkdir(), (workdir / "b").mkdir()
    server_a, server_b = LiveServer(workdir / "a", env), LiveServer(workdir / "b", env)
    workers: list[Worker] = []
    try:
        prepare(server_a)
        server_a.start()
        server_b.start()
        workers.append(Worker(server_a.env, workdir / "worker-1.log"))
        yield server_a, server_b, workers, database, workdir
    finally:
        for process in [server_a, server_b, *workers]:
            process.stop()
        database.drop()
        clear_redis_prefix(env["REDIS_PREFIX"])


def test_the_worker_asks_through_server_a_and_an_answer_posted_to_server_b_resumes_the_run(
    stack,
):
    server_a, server_b, _, database, _ = stack
    person = Person(server_a)
    conversation = person.start_conversation(server_a, "deploy-assistant")
    with person.open_tab(server_a, conversation) as tab:
        sent = person.post(server_b, f"/c/{conversation}/send", {"text": "Ship it"})
        assert sent.status_code == 200
        question = tab.wait_for("Which environment should I deploy to?")
        answer = {"action": "accept", "answer.environment": "staging", "answer.version": "v2.0.1"}
        assert person.post(server_b, settle_url(question), answer).status_code == 200
        approval = tab.wait_for("Deploy version v2.0.1 of the web app to Staging")
        approve = {"action": "accept", "answer.scope": "once"}
        assert person.post(server_b, settle_url(approval), approve).status_code == 200
        tab.wait_for("Deployed <strong>v2.0.1</strong> to <strong>Staging</strong>")

    assert tab.count("Deployed <strong>v2.0.1</strong>") == 1
    wait_for_turn_done(database, conversation)
    steps = database.query(
        "SELECT s.name FROM playground_step s JOIN playground_turn t ON s.turn_id = t.id "
        "WHERE t.conversation_id = %s",
        (conversation,),
    )
    assert steps == [("deploy",)]


def test_a_worker_killed_mid_step_is_replaced_and_the_run_completes_once(stack):
    server_a, server_b, workers, database, step_dir = stack
    person = Person(server_a)
    conversation = person.start_conversation(server_a, "slow-step")
    started = step_dir / "started"
    with person.open_tab(server_a, conversation) as tab:
        person.post(server_b, f"/c/{conversation}/send", {"text": "Go"})
        tab.wait_for("Starting the slow step.")
        wait_for(lambda: started.exists() and started.read_text().count("\n") == 1)
        workers[0].kill()
        workers.append(Worker(server_a.env, step_dir / "worker-2.log"))
        reply = tab.wait_for("Finished the slow step in worker process")

    assert f"worker process {workers[1].process.pid}." in reply
    assert tab.count("Starting the slow step.") == 1
    assert tab.count("Finished the slow step") == 1
    turn_id = wait_for_turn_done(database, conversation)
    messages = database.query(
        "SELECT text FROM playground_message WHERE turn_id = %s ORDER BY call_index", (turn_id,)
    )
    assert [text for (text,) in messages] == [
        "Starting the slow step.",
        f"Finished the slow step in worker process {workers[1].process.pid}.",
    ]
    assert database.query("SELECT name FROM playground_step WHERE turn_id = %s", (turn_id,)) == [
        ("slow",)
    ]
    # The step was not recorded when the first worker died, so the second ran it again.
    assert started.read_text().split() == [str(workers[0].process.pid), str(workers[1].process.pid)]


def wait_for_turn_done(database, conversation: int) -> int:
    """Return the conversation's one turn once it is done: the run marks it done right after
    pushing its reply, so a tab may see the reply a moment before."""
    query = "SELECT id, status FROM playground_turn WHERE conversation_id = %s"
    wait_for(
        lambda: database.query(query, (conversation,))[0][1] == "done",
        message="the run did not mark its turn done",
    )
    [(turn_id, _)] = database.query(query, (conversation,))
    return turn_id

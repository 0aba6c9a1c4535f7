"""Scale-out faults: Redis restarting mid-run, PostgreSQL unreachable for a while.

The server uses a Redis of its own (killed and started again on the same port) and reaches
PostgreSQL through a TCP pass-through the test unplugs, so the machine's shared servers
never go down. The worker reaches PostgreSQL directly.
"""

import shutil
import signal
import socket
import subprocess
import threading
from urllib.parse import urlsplit

import psycopg
import pytest
import redis
from websockets.exceptions import ConnectionClosed

from tests.support.live_server import LiveServer, free_port, wait_for
from tests.test_scaleout import (
    Person,
    PostgresDatabase,
    Worker,
    prepare,
    require_services,
    scaleout_env,
    settle_url,
)


class PrivateRedis:
    """A redis-server for this module only, without persistence, like the CI's."""

    def __init__(self, workdir):
        self.workdir = workdir
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.workdir),
            ],
            stdout=subprocess.DEVNULL,
        )
        wait_for(self._answers, message="redis-server did not start")

    def _answers(self) -> bool:
        try:
            return redis.Redis.from_url(self.url, socket_timeout=1).ping()
        except redis.ConnectionError:
            return False

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)


class Cable:
    """A TCP pass-through to PostgreSQL that can be unplugged and plugged in again."""

    def __init__(self, target_port: int, host: str = "127.0.0.1"):
        self.target = ("127.0.0.1", target_port)
        self.host = host
        self.port = free_port()
        self.sockets: list[socket.socket] = []

    def plug(self) -> None:
        self.listener = socket.create_server((self.host, self.port))
        threading.Thread(target=self._accept, args=(self.listener,), daemon=True).start()

    def unplug(self) -> None:
        self.listener.shutdown(socket.SHUT_RDWR)  # wakes the accept() below
        self.listener.close()
        for sock in self.sockets:
            sock.close()
        self.sockets.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # unplugged
            upstream = socket.create_connection(self.target)
            self.sockets += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            source.close()
            sink.close()


@pytest.fixture(scope="module")
def faults(tmp_path_factory):
    require_services()
    if not shutil.which("redis-server"):
        pytest.fail("the fault tests start a Redis of their own: install redis-server")
    workdir = tmp_path_factory.mktemp("scaleout-faults")
    (workdir / "server").mkdir()
    database = PostgresDatabase()
    private_redis = PrivateRedis(workdir)
    private_redis.start()
    postgres = urlsplit(database.url)
    cable = Cable(postgres.port)
    cable.plug()
    # A short statement limit keeps the slow-database test quick (the default is 8 s).
    worker_env = scaleout_env(
        database, workdir, REDIS_URL=private_redis.url, DATABASE_STATEMENT_TIMEOUT="2"
    )
    through_cable = postgres._replace(netloc=f"{postgres.username}@127.0.0.1:{cable.port}")
    server = LiveServer(workdir / "server", {**worker_env, "DATABASE_URL": through_cable.geturl()})
    worker = None
    try:
        prepare(server)
        server.start()
        worker = Worker({**server.env, **worker_env}, workdir / "worker.log")
        yield server, private_redis, cable, database
    finally:
        for process in (server, worker):
            if process is not None:
                process.stop()
        private_redis.kill()
        cable.unplug()
        database.drop()


def test_after_redis_restarts_the_run_has_gone_on_and_a_reconnecting_tab_catches_up(faults):
    server, private_redis, _, database = faults
    person = Person(server)
    conversation = person.start_conversation(server, "deploy-assistant")
    with person.open_tab(server, conversation) as tab:
        person.post(server, f"/c/{conversation}/send", {"text": "Ship it"})
        question = tab.wait_for("Which environment should I deploy to?")

        private_redis.kill()
        with pytest.raises(ConnectionClosed) as closed:  # the page's websocket drops at once
            tab.wait_for("never sent", timeout=10)
        assert closed.value.rcvd.code == 4012  # static/playground.js reconnects on this code

    health = person.client.get("/healthz")
    assert health.status_code == 503
    assert health.json()["checks"]["database"] == "ok"
    assert health.json()["checks"]["channel_layer"].startswith("failed")

    # Answering still works, and the worker goes on to the next question without Redis.
    answer = {"action": "accept", "answer.environment": "production", "answer.version": "v3"}
    assert person.post(server, settle_url(question), answer).status_code == 200
    wait_for(
        lambda: database.query(
            "SELECT 1 FROM elicitation_part WHERE conversation_id = %s AND state = 'pending'",
            (conversation,),
        ),
        message="the run did not go on to the approval while Redis was down",
    )

    private_redis.start()
    with person.open_tab(server, conversation, retry_for=15) as tab:
        resync = tab.received[0]
        assert "Deploy version v3 of the web app to Production" in resync
        assert "part--submitted" in resync  # the first answer, as a read-only chip
        approve = {"action": "accept", "answer.scope": "once"}
        assert person.post(server, settle_url(resync), approve).status_code == 200
        tab.wait_for("Deployed <strong>v3</strong> to <strong>Production</strong>")
    assert person.client.get("/healthz").status_code == 200
    wait_for(lambda: "Redis answers again" in server.log())
    assert server.log().count("lost Redis") == 1  # once per outage, not at every retry


def test_while_the_database_is_unreachable_requests_get_a_503_page_and_nothing_is_saved(faults):
    server, _, cable, database = faults
    person = Person(server)
    conversation = person.start_conversation(server, "deploy-assistant")

    cable.unplug()
    try:
        page = person.client.get(f"/c/{conversation}/")
        assert page.status_code == 503
        assert "We can't reach the database right now" in page.text
        sent = person.post(server, f"/c/{conversation}/send", {"text": "Lost in the outage"})
        assert sent.status_code == 503
        health = person.client.get("/healthz")
        assert health.status_code == 503
        assert health.json()["checks"]["database"].startswith("failed: ")
        assert "127.0.0.1" not in health.text  # a reason, not the driver's message
        assert person.client.get("/livez").status_code == 200  # alive: no restart needed
    finally:
        cable.plug()

    # Back: the connection pool reconnects on its own within seconds.
    wait_for(lambda: person.client.get("/healthz").status_code == 200, timeout=30)
    assert person.client.get(f"/c/{conversation}/").status_code == 200
    assert (
        database.query(
            "SELECT text FROM playground_turn WHERE conversation_id = %s", (conversation,)
        )
        == []
    )
    with person.open_tab(server, conversation) as tab:
        person.post(server, f"/c/{conversation}/send", {"text": "Ship it"})
        tab.wait_for("Which environment should I deploy to?")


def test_a_statement_the_database_does_not_finish_in_time_gets_the_503_page(faults):
    server, _, _, database = faults
    person = Person(server)
    conversation = person.start_conversation(server, "deploy-assistant")

    # A server too busy to answer, as seen from the app: every read of conversations waits.
    with psycopg.connect(database.url) as blocker:
        blocker.execute("LOCK TABLE playground_conversation IN ACCESS EXCLUSIVE MODE")
        page = person.client.get(f"/c/{conversation}/")
        assert page.status_code == 503
        assert "We can't reach the database right now" in page.text
        assert person.client.get("/healthz").status_code == 200  # the database does answer

    assert person.client.get(f"/c/{conversation}/").status_code == 200

"""The system under test, started fresh for one benchmark run, and torn down after.

`embedded`: one daphne process, SQLite, the in-memory channel layer, runs on the server loop.
`scaleout`: a fresh PostgreSQL database, Redis (own key prefix), one daphne process and
`--workers` workers (`manage.py worker`, as in the Procfile).

The bench process itself is set up against the same database, so it can read what the
servers wrote (Part.created_at, counts) with the ORM.
"""

import os
import shutil
import tempfile
import time
import uuid
from pathlib import Path

import psutil

from tests.support.live_server import LiveServer, Worker

BASE_DIR = Path(__file__).resolve().parent.parent
POSTGRES_URL = os.environ.get("BENCH_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432")
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
USERNAME, PASSWORD = "bench", "bench-password-1"


def cpu_seconds(process: psutil.Process) -> float:
    """Return the CPU time a process has used so far (user and system)."""
    times = process.cpu_times()
    return times.user + times.system


def wait_until(condition, timeout: float, what: str):
    """Poll `condition` until it returns something truthy; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        time.sleep(0.05)
    raise TimeoutError(f"{what} (waited {timeout:.0f} s)")


class Stack:
    def __init__(
        self,
        kind: str,
        *,
        workers: int = 2,
        synchronous_commit: bool = True,
        concurrency: int | None = None,
    ):
        assert kind in ("embedded", "scaleout"), kind
        self.synchronous_commit = synchronous_commit
        self.kind = kind
        self.worker_count = workers if kind == "scaleout" else 0
        self.workdir = Path(tempfile.mkdtemp(prefix=f"bench-{kind}-"))
        self.database = f"bench_{uuid.uuid4().hex[:12]}"
        self.env = {
            "DJANGO_SETTINGS_MODULE": "bench.settings",
            "STATIC_ROOT": str(self.workdir / "static"),
            "PYTHONUNBUFFERED": "1",
            "DEBUG": "0",
            "API_RATE_LIMIT": "1000000/m",  # api_longpoll's thousand calls are one token's
        }
        if kind == "embedded":
            self.env["DATABASE_URL"] = f"sqlite:///{self.workdir / 'db.sqlite3'}"
        else:
            # Diagnostic only: commits that return before the WAL reaches the disk.
            options = "" if synchronous_commit else "?options=-c%20synchronous_commit%3Doff"
            self.env |= {
                "DATABASE_URL": f"{POSTGRES_URL}/{self.database}{options}",
                "REDIS_URL": REDIS_URL,
                "REDIS_PREFIX": self.database,
                "JOBS_RUN_IN": "workers",
            }
        # Turns a runner runs at once: the embedded server's, or each worker's.
        self.worker_args = []
        if concurrency is not None:
            self.env["EMBEDDED_CONCURRENCY"] = str(concurrency)
            self.worker_args = ["--concurrency", str(concurrency)]
        self.web = LiveServer(self.workdir, self.env)
        self.url = self.web.url
        self.workers: list[Worker] = []

    @property
    def description(self) -> str:
        if self.kind == "embedded":
            return "embedded: 1 daphne, SQLite, in-memory layer, in-process runs"
        commit = "" if self.synchronous_commit else " (synchronous_commit=off)"
        return f"scale-out: 1 daphne + {self.worker_count} worker, PostgreSQL{commit}, Redis"

    def __enter__(self) -> "Stack":
        if self.kind == "scaleout":
            _postgres_admin(f'CREATE DATABASE "{self.database}"')
        os.environ.update(self.env)
        import django

        django.setup()
        from django.contrib.auth.models import User
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        User.objects.create_user(USERNAME, password=PASSWORD)  # before seed: no local login
        call_command("seed", stdout=open(os.devnull, "w"))
        # What `make run` serves; in scale-out, the Procfile's web behind deploy/nginx.conf
        # (pings every WEBSOCKET_PING_SECONDS), and its workers. The tests' own servers.
        try:
            self.web.start()
            for number in range(self.worker_count):
                log = self.workdir / f"worker-{number}.log"
                self.workers.append(Worker(self.web.env, log, *self.worker_args))
        except BaseException:
            self.__exit__()  # `with` calls __exit__ only after __enter__ returned: no orphans
            raise
        return self

    def processes(self) -> dict[str, psutil.Process]:
        """Return the server processes by name: web, then the workers."""
        named = {"web": psutil.Process(self.web.process.pid)}
        for number, worker in enumerate(self.workers):
            named[f"worker-{number}"] = psutil.Process(worker.process.pid)
        return named

    def __exit__(self, *exc_info) -> None:
        for process in [self.web, *self.workers]:
            process.stop()
        if self.kind == "scaleout":
            from django.db import connections

            connections.close_all()
            _postgres_admin(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')
            _clear_redis_prefix(self.database)
        shutil.rmtree(self.workdir, ignore_errors=True)


def _postgres_admin(sql: str) -> None:
    import psycopg

    with psycopg.connect(f"{POSTGRES_URL}/postgres", autocommit=True) as connection:
        connection.execute(sql)


def _clear_redis_prefix(prefix: str) -> None:
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    for key in client.scan_iter(f"{prefix}*"):
        client.delete(key)


def refresh_planner_statistics() -> None:
    """After a bulk insert: the planner's statistics, as the stack keeps them in use (SQLite:
    every web process's hourly refresh; PostgreSQL: autovacuum's ANALYZE, not yet run here)."""
    from django.db import connection

    from playground.server import planner_statistics

    if connection.vendor == "sqlite":
        planner_statistics.refresh()
    else:
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")

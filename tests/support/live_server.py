"""A real daphne server in a subprocess (`manage.py serve`), on its own SQLite file: `make run`,
with a fast password hasher (tests/support/live_settings.py).

Tests can kill it (SIGKILL) and start it again on the same database, and read that database
directly to check what a restart left behind.
"""

import atexit
import functools
import os
import random
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[2]


# A quick sweep, for the runs a test leaves without a heartbeat. A restarted embedded server
# queues every run it finds "running" at once, so no test waits for a heartbeat to go stale;
# at 1 s a loaded machine delayed live runs' heartbeats past it, the sweep queued those runs
# again, and an MCP tool ran twice (test_mcp_live's restart test, in the suite).
FAST_RECOVERY = {
    "RUN_HEARTBEAT_SECONDS": "1",
    "RUN_STALE_AFTER_SECONDS": "15",
    "RECOVERY_SWEEP_SECONDS": "0.3",
}


# Below the kernel's ephemeral range (32768-60999 on Linux): a port chosen there could be taken
# by any outgoing connection between being chosen and the server binding it (a browser
# module's daphne found its port taken in CI).
PORTS = range(20000, 32768)


def free_port() -> int:
    """Return a port on 127.0.0.1 that nothing listens on, outside the ephemeral range."""
    while True:
        port = random.choice(PORTS)
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue  # in use
            return port


def wait_for(condition, timeout: float = 30.0, interval: float = 0.05, message=""):
    """Poll `condition` until it returns something truthy; fail after `timeout` seconds.

    `message` may be a function, called at the failure: a log read then shows how it ended."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        time.sleep(interval)
    message = message() if callable(message) else message
    raise AssertionError(message or f"condition not met within {timeout} s")


def wait_until_listening(process: subprocess.Popen, listening, what: str) -> None:
    """Wait for a server process just started to listen; fail at once if it exits.

    A server that never listens is killed before the failure is raised: a fixture's teardown
    does not run when its setup fails, so it would outlive the suite (a loaded run left nine
    test servers running, all started by fixtures whose setup timed out). 60 s, as for daphne:
    a Python server that imports an SDK takes 2 s on a quiet machine, over 30 s at load 30."""
    try:
        wait_for(
            lambda: process.poll() is not None or listening(), 60, message=f"{what} did not start"
        )
        assert process.poll() is None, f"{what} exited ({process.returncode})"
    except BaseException:
        process.kill()
        process.wait()
        raise


def stop_process(process: subprocess.Popen) -> None:
    """Stop a server the way a service manager does: SIGTERM, then SIGKILL after 10 s."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def migrate(database_url: str) -> None:
    """Apply every migration to the database at `database_url`, in a process of its own."""
    env = {**os.environ, "DATABASE_URL": database_url}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    done = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=360,
    )
    assert done.returncode == 0, done.stderr


@functools.cache
def migrated_sqlite() -> Path:
    """Return a SQLite file with every migration applied, made once per test process.

    Applying the migrations took 8 s of a server's preparation on a 2-core machine (a copy
    takes milliseconds), and some thirty servers are prepared in a run of the suite.
    """
    folder = Path(tempfile.mkdtemp(prefix="migrated-sqlite-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = folder / "db.sqlite3"
    migrate(f"sqlite:///{path}")
    # Everything into the one file copied (the last connection closed deletes the journal).
    with sqlite3.connect(path) as database:
        database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    database.close()
    assert not path.with_name(path.name + "-wal").exists()
    return path


class LiveServer:
    def __init__(
        self,
        workdir: Path,
        env: dict | None = None,
        *,
        host: str = "127.0.0.1",
        netns: str | None = None,
        serve_args: tuple[str, ...] = (),
    ):
        """`netns`: run the server inside that network namespace, serving on `host` there.
        `serve_args`: more options for `manage.py serve` (`--proxy-headers`)."""
        self.workdir = workdir
        self.host = host
        self.netns = netns
        self.serve_args = serve_args
        self.db_path = workdir / "db.sqlite3"
        self.port = free_port()
        self.log_path = workdir / "daphne.log"
        # The playground's settings with a fast password hasher, unless `env` names others
        # (the bench's).
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "tests.support.live_settings",
            "DATABASE_URL": f"sqlite:///{self.db_path}",
            "STATIC_ROOT": str(workdir / "static"),
            "FILES_ROOT": str(workdir / "files"),
            "PYTHONUNBUFFERED": "1",
            **(env or {}),
        }
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def manage(self, *args: str, stdin: str | None = None, timeout: float = 120) -> str:
        """Run a manage.py command against this server's database; return its output."""
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=BASE_DIR,
            env=self.env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    def prepare(self, users: dict[str, str]) -> None:
        """Migrate, seed the built-in agents and create the given users.

        One process for the three: each manage.py start costs about 2 s of CPU, and
        nineteen modules prepare a server. A server on its own SQLite file starts from a copy
        of one migrated in this test process (`migrate` then has nothing to apply)."""
        if self.env["DATABASE_URL"] == f"sqlite:///{self.db_path}" and not self.db_path.exists():
            shutil.copyfile(migrated_sqlite(), self.db_path)
        script = (
            "from django.contrib.auth.models import User\n"
            "from django.core.management import call_command\n"
            "call_command('migrate', interactive=False, verbosity=0)\n"
            "call_command('seed')\n"
        ) + "".join(
            f"User.objects.create_user({name!r}, password={password!r})\n"
            for name, password in users.items()
        )
        self.manage("shell", "-c", script, timeout=360)  # the three commands' 120 s each

    def start(self) -> None:
        self.start_without_visiting()
        try:
            self.wait_until_answering()
        except BaseException:
            # A server that never answered would outlive the suite: its fixture's teardown does
            # not run when the setup fails (two such servers were left running after a loaded run).
            self.stop()
            raise

    def ensure_running(self) -> None:
        """Start the server again if an earlier test left it stopped (or still starting)."""
        if self.process is None or self.process.poll() is not None:
            self.start()
        else:
            self.wait_until_answering()

    def wait_until_answering(self) -> None:
        """Wait for the login page; a server that exits meanwhile (a port taken) fails at once."""

        def answers_or_exited() -> bool:
            return self.process.poll() is not None or self._answers()

        wait_for(
            answers_or_exited, timeout=60, message=lambda: f"daphne did not start: {self.log()}"
        )
        assert self.process.poll() is None, (
            f"daphne exited ({self.process.returncode}): {self.log()}"
        )

    def start_without_visiting(self) -> None:
        """Start the server and return before anyone has made a request to it."""
        serve = ["manage.py", "serve", "--host", self.host, "--port", str(self.port)]
        serve += self.serve_args
        command = [sys.executable, *serve]
        if self.netns:
            command = ["ip", "netns", "exec", self.netns, *command]  # execs: the same pid
        with open(self.log_path, "a") as log:  # the child keeps its own copy of the handle
            self.process = subprocess.Popen(
                command,
                cwd=BASE_DIR,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def _answers(self) -> bool:
        try:
            with urllib.request.urlopen(self.url + "/accounts/login/", timeout=2) as response:
                return response.status == 200
        except OSError:
            return False

    def kill(self) -> None:
        """Kill the server the hard way, like a crash or a power cut."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process:
            stop_process(self.process)

    def log(self) -> str:
        return self.log_path.read_text() if self.log_path.exists() else ""

    def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        """Read the server's database directly."""
        with sqlite3.connect(self.db_path, timeout=20) as connection:
            return connection.execute(sql, params).fetchall()


class LiveClient:
    """A logged-in HTTP client for a live server (cookies and CSRF handled like a browser)."""

    def __init__(self, server: LiveServer, username: str, password: str):
        import http.cookiejar

        self.server = server
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))
        self.get("/accounts/login/")
        self.post("/accounts/login/", {"username": username, "password": password})

    def _csrf(self) -> str:
        return next((c.value for c in self.cookies if c.name == "csrftoken"), "")

    def get(self, path: str) -> tuple[int, str]:
        return self._open(urllib.request.Request(self.server.url + path))

    def post(self, path: str, data: dict) -> tuple[int, str]:
        import urllib.parse

        form = {**data, "csrfmiddlewaretoken": self._csrf()}
        body = urllib.parse.urlencode(form, doseq=True).encode()  # a list: one value each
        request = urllib.request.Request(
            self.server.url + path, data=body, headers={"Referer": self.server.url + "/"}
        )
        return self._open(request)

    def _open(self, request) -> tuple[int, str]:
        try:
            with self.opener.open(request, timeout=30) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()


class Worker:
    """A `manage.py worker` process, returned once it runs its jobs."""

    def __init__(self, env: dict, log_path, *options: str):
        self.log_path = log_path
        with open(log_path, "a") as log:
            self.process = subprocess.Popen(
                [sys.executable, "manage.py", "worker", *options],
                cwd=BASE_DIR,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        # Waits for the line it prints as its loop starts: a test's clock for a turn (a question
        # within 20 s) then starts at a running worker, not at an interpreter still importing
        # Django, which took longer than that on a loaded 2-core machine.
        try:
            wait_for(self._running, timeout=60, message="worker did not start")
        except BaseException:
            self.kill()
            raise

    def _running(self) -> bool:
        log = self.log_path.read_text()
        assert self.process.poll() is None, f"worker exited: {log}"
        return "worker: running" in log

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        stop_process(self.process)

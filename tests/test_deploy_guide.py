"""The production steps of docs/deployment.md, run as written from a clean database, end in
a working login.

The commands come from the Procfile itself (and the page must show the same ones): the
release step, the documented first login, then the web process, reached the way a TLS router
reaches it: plain HTTP on $PORT with `X-Forwarded-Proto: https`.
"""

import os
import re
import secrets
import signal
import subprocess
import sys
from http.cookies import SimpleCookie
from pathlib import Path

import httpx
import psutil

from tests.support.live_server import BASE_DIR, free_port, wait_for
from tests.test_scaleout import REDIS_URL, PostgresDatabase, clear_redis_prefix, require_services

PROCFILE = dict(
    line.split(": ", 1)
    for line in (BASE_DIR / "Procfile").read_text().splitlines()
    if line and not line.startswith("#")
)
FIRST_LOGIN = (
    "python manage.py createsuperuser --noinput --username admin --email admin@example.com"
)
PASSWORD = "a-first-login-password"


def test_the_deployment_page_gives_the_procfile_commands_and_the_first_login():
    readme = (BASE_DIR / "docs" / "deployment.md").read_text()
    assert set(PROCFILE) == {"release", "web", "worker"}
    for command in PROCFILE.values():
        assert f"\n{command}\n" in readme, command
    assert "python manage.py createsuperuser" in readme
    assert " ".join(FIRST_LOGIN.split()[3:]) in " ".join(readme.split())


class Visitor:
    """A browser on the https:// site, as the TLS router forwards it to one web process."""

    def __init__(self, port: int):
        self.origin = f"https://127.0.0.1:{port}"
        self.http = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30)
        self.cookies: dict[str, str] = {}
        self.secure_cookies: set[str] = set()

    def request(self, method: str, path: str, **kwargs) -> httpx.Response:
        headers = {"X-Forwarded-Proto": "https", "Origin": self.origin, "Referer": self.origin}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
        response = self.http.request(method, path, headers=headers, **kwargs)
        # By hand: the cookies are Secure, and this client only talks plain HTTP to the process.
        for header in response.headers.get_list("set-cookie"):
            for name, morsel in SimpleCookie(header).items():
                self.cookies[name] = morsel.value
                if morsel["secure"]:
                    self.secure_cookies.add(name)
        return response

    def log_in(self, username: str, password: str) -> httpx.Response:
        page = self.request("GET", "/accounts/login/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
        form = {"username": username, "password": password, "csrfmiddlewaretoken": token}
        return self.request("POST", "/accounts/login/", data=form)


def shell(command: str, env: dict) -> str:
    done = subprocess.run(
        ["sh", "-c", command], cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def answers(port: int) -> bool:
    try:
        visitor = Visitor(port)
        return visitor.request("GET", "/accounts/login/").status_code == 200
    except httpx.TransportError:
        return False


def test_the_documented_production_start_serves_a_login_from_a_clean_database(tmp_path):
    require_services()
    database = PostgresDatabase(migrated=False)  # the release step migrates it
    port = free_port()
    env = {
        **{key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"},
        # `python` in the Procfile is this test run's interpreter.
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "PYTHONUNBUFFERED": "1",
        "PLAYGROUND_ENV": "production",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_URL": database.url,
        "REDIS_URL": REDIS_URL,
        "REDIS_PREFIX": f"test-{database.name}",
        "JOBS_RUN_IN": "workers",
        "BEHIND_TLS_PROXY": "1",
        "STATIC_ROOT": str(tmp_path / "static"),
        "PORT": str(port),
    }
    web = None
    try:
        shell(PROCFILE["release"], env)
        shell(FIRST_LOGIN, {**env, "DJANGO_SUPERUSER_PASSWORD": PASSWORD})
        with open(tmp_path / "web.log", "w") as log:
            web = subprocess.Popen(
                ["sh", "-c", PROCFILE["web"]],
                cwd=BASE_DIR,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # the shell and daphne stop together
            )
        wait_for(
            lambda: answers(port),
            timeout=90,
            message=lambda: f"the web process did not answer: {(tmp_path / 'web.log').read_text()}",
        )

        # It listens on every interface, where a platform's router reaches it.
        listening = {
            (connection.laddr.ip, connection.laddr.port)
            for process in [psutil.Process(web.pid), *psutil.Process(web.pid).children(True)]
            for connection in process.net_connections("tcp")
            if connection.status == psutil.CONN_LISTEN
        }
        assert ("0.0.0.0", port) in listening

        visitor = Visitor(port)
        assert visitor.log_in("admin", PASSWORD).headers["location"] == "/"
        assert {"csrftoken", "sessionid"} <= visitor.secure_cookies
        home = visitor.request("GET", "/")
        assert home.status_code == 200
        for agent in ("Schema tester", "Deploy assistant", "Support triage"):
            assert f"Chat with {agent}" in home.text
        assert home.headers["strict-transport-security"].startswith("max-age=31536000")
        assert "script-src 'self'" in home.headers["content-security-policy"]

        # Static files were collected where this process serves them, under hashed names.
        stylesheet = re.search(r'href="(/static/playground\.[0-9a-f]{12}\.css)"', home.text)
        assert stylesheet, home.text
        served = visitor.request("GET", stylesheet.group(1))
        assert served.status_code == 200
        assert "immutable" in served.headers["cache-control"]  # hashed: cached for good

        # Plain HTTP that did not come through the TLS router is sent to https.
        plain = httpx.get(f"http://127.0.0.1:{port}/accounts/login/")
        assert plain.status_code == 301
        assert plain.headers["location"] == f"https://127.0.0.1:{port}/accounts/login/"
        # ...but not the probes an orchestrator sends to the process's own address.
        assert httpx.get(f"http://127.0.0.1:{port}/livez").status_code == 200

        # Guessing is paused after five wrong passwords, even for the right one.
        stranger = Visitor(port)
        for _ in range(5):
            refused = stranger.log_in("admin", "a-wrong-guess")
        assert refused.status_code == 429 and "Logging in is paused" in refused.text
        assert stranger.log_in("admin", PASSWORD).status_code == 429
    finally:
        if web is not None:
            os.killpg(web.pid, signal.SIGTERM)
            web.wait(timeout=30)
        database.drop()
        clear_redis_prefix(f"test-{database.name}")

"""PLAYGROUND_ENV=production: no start without a SECRET_KEY, and `check --deploy` is clean."""

import os
import secrets
import subprocess
import sys

import pytest
from django.urls import reverse

from tests.support.live_server import BASE_DIR


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    environment = {key: value for key, value in os.environ.items() if key != "SECRET_KEY"}
    environment.pop("DJANGO_SETTINGS_MODULE", None)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=BASE_DIR,
        env={**environment, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("debug", ["0", "1"])
def test_production_refuses_to_start_without_a_secret_key(debug):
    done = manage("check", PLAYGROUND_ENV="production", DEBUG=debug)

    assert done.returncode != 0
    assert "Set SECRET_KEY in the environment" in done.stderr


def test_check_deploy_reports_nothing_in_production(tmp_path):
    done = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        PLAYGROUND_ENV="production",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="chat.example.com",
        BEHIND_TLS_PROXY="1",
        STATIC_ROOT=str(tmp_path / "static"),
    )

    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues" in done.stdout
    assert "WARNING" not in done.stdout + done.stderr


@pytest.mark.django_db
def test_pages_forbid_inline_scripts_and_styles(client, alice):
    client.force_login(alice)

    response = client.get(reverse("home"))

    header = response["Content-Security-Policy"]
    policy = dict(directive.strip().split(" ", 1) for directive in header.split(";"))
    for directive in ("script-src", "style-src"):
        # Our own files, or an inline one carrying this response's nonce.
        sources = policy[directive].split()
        assert sources[0] == "'self'"
        assert all(source.startswith("'nonce-") for source in sources[1:])
    assert policy["connect-src"] == "'self'"
    assert "unsafe" not in header


@pytest.mark.django_db
def test_the_csrf_cookie_is_out_of_reach_of_scripts_and_the_page_carries_the_token(client):
    response = client.get(reverse("login"))

    cookie = response.cookies["csrftoken"]
    assert cookie["httponly"]
    # htmx sends it from the page with every request.
    assert f'{{"X-CSRFToken": "{response.context["csrf_token"]}"}}' in response.content.decode()

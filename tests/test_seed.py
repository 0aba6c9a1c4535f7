"""`make run` seeds the built-in agents and creates a local login on the first run only."""

import io

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from playground.runs.management.commands import seed
from playground.runs.models import Agent


@pytest.fixture
def login_file(tmp_path, monkeypatch):
    path = tmp_path / ".local-login"
    monkeypatch.setattr(seed, "LOGIN_FILE", path)
    return path


def run_seed(*args: str) -> str:
    out = io.StringIO()
    call_command("seed", *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_it_creates_the_built_in_agents_once(login_file):
    run_seed()
    run_seed()
    assert set(Agent.objects.filter(builtin=True).values_list("name", flat=True)) >= {
        "Schema tester",
        "Deploy assistant",
        "Support triage",
    }
    assert Agent.objects.filter(slug="schema-tester").count() == 1
    assert not User.objects.exists() and not login_file.exists()


@pytest.mark.django_db
def test_the_first_run_creates_a_login_that_works_and_later_runs_repeat_it(login_file, client):
    first = run_seed("--local-login")
    username, password = login_file.read_text().split()
    assert f"username admin, password {password}" in first
    response = client.post("/accounts/login/", {"username": username, "password": password})
    assert response.status_code == 302 and response["Location"] == "/"

    second = run_seed("--local-login")
    assert f"username admin, password {password}" in second
    assert User.objects.count() == 1

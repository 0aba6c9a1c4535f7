"""The routing example of docs/inbox.md ("Questions that wait for you") works as written."""

import re
import sys
from pathlib import Path

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from tests.support.runtime_helpers import answer, pending, said, send, start

PAGE = Path(__file__).resolve().parent.parent / "docs" / "inbox.md"


@pytest.fixture
def readme_agent(tmp_path, monkeypatch):
    section = PAGE.read_text()
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    (tmp_path / "release_agents.py").write_text(code)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("release_agents", None)
    __import__("release_agents")


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.django_db(transaction=True)
def test_grace_picks_the_version_and_another_release_manager_approves(readme_agent, alice, bob):
    grace = User.objects.create_user("grace", password="grace-password-1")
    Group.objects.create(name="release-managers").user_set.add(alice, bob, grace)
    conversation = start(alice, "release-bot")
    send(logged_in(alice), conversation, "release")
    assert answer(logged_in(grace), pending(conversation), version="1.2").status_code == 200
    approval = pending(conversation)
    assert answer(logged_in(alice), approval, scope="once").status_code == 409
    assert answer(logged_in(bob), approval, scope="once").status_code == 200
    assert said(conversation) == ["Releasing 1.2."]

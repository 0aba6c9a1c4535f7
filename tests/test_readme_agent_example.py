"""The agent example of docs/agents.md ("Write an agent") works as written."""

import re
import sys
from pathlib import Path

import pytest

from elicitation.models import Part
from tests.support.runtime_helpers import answer, said, send, start

PAGE = Path(__file__).resolve().parent.parent / "docs" / "agents.md"


@pytest.fixture
def readme_agent(tmp_path, monkeypatch):
    section = PAGE.read_text()
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    (tmp_path / "my_agents.py").write_text(code)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("my_agents", None)
    __import__("my_agents")
    return code


def test_the_readme_example_is_short(readme_agent):
    assert len([line for line in readme_agent.splitlines() if line.strip()]) <= 20


@pytest.mark.django_db(transaction=True)
def test_the_readme_example_asks_and_continues_with_the_answer(readme_agent, client, alice):
    client.force_login(alice)
    conversation = start(alice, "trip-planner")
    send(client, conversation, "a weekend away")
    part = Part.objects.get(conversation=conversation)
    page = client.get(conversation.get_absolute_url()).content.decode()
    assert "Where to, and for how long?" in page and 'type="number"' in page
    assert answer(client, part, city="Lisbon", nights="3").status_code == 200
    assert said(conversation) == ["Booking 3 nights in Lisbon."]

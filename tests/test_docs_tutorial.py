"""The first agents a person writes work as written: the README's, and each step of
docs/tutorial.md, taken from the files at test time and driven through the chat's views."""

import re
import sys
from pathlib import Path

import pytest

from playground.runs import agents
from tests.support.runtime_helpers import answer, pending, said, send, start

ROOT = Path(__file__).resolve().parent.parent


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), re.S)


@pytest.fixture
def load(tmp_path, monkeypatch):
    """Save a block as my_agents.py and import it, as AGENT_MODULES=my_agents does."""
    monkeypatch.setattr(agents, "REGISTRY", dict(agents.REGISTRY))
    monkeypatch.syspath_prepend(str(tmp_path))

    def saved(code: str) -> None:
        (tmp_path / "my_agents.py").write_text(code)
        sys.modules.pop("my_agents", None)
        __import__("my_agents")

    return saved


@pytest.mark.django_db(transaction=True)
def test_the_readme_agent_asks_and_uses_the_answer(load, client, alice):
    (code,) = python_blocks(ROOT / "README.md")
    assert len([line for line in code.splitlines() if line.strip()]) <= 12
    load(code)
    client.force_login(alice)
    conversation = start(alice, "hello-city")
    send(client, conversation, "hi")
    assert answer(client, pending(conversation), city="Lisbon").status_code == 200
    assert said(conversation) == ["Hello from Lisbon!"]


@pytest.mark.django_db(transaction=True)
def test_the_tutorial_steps_run_as_written(load, client, alice):
    first, second, third = python_blocks(ROOT / "docs" / "tutorial.md")
    client.force_login(alice)

    load(first)
    conversation = start(alice, "packing-list")
    send(client, conversation, "a trip")
    assert said(conversation) == ["You said: a trip. Where are you going?"]

    load(second)
    conversation = start(alice, "packing-list")
    send(client, conversation, "pack")
    page = client.get(conversation.get_absolute_url()).content.decode()
    assert 'type="number"' in page and 'type="checkbox"' in page
    fields = {"city": "Oslo", "nights": "2", "weather": "snow"}
    assert answer(client, pending(conversation), **fields).status_code == 200
    assert said(conversation) == ["For Oslo, pack 2 shirts, toothbrush, gloves in a suitcase."]

    load(third)
    conversation = start(alice, "packing-list")
    send(client, conversation, "pack")
    assert answer(client, pending(conversation), city="Rome").status_code == 200
    assert answer(client, pending(conversation), scope="once").status_code == 200
    assert said(conversation) == ["Saved as packing-rome.txt."]

"""An LLM agent's tools: run once per turn, and destructive ones only after approval."""

import pytest

from elicitation.models import Part
from playground.runs.models import Turn
from tests.support.llm_support import (
    DELETED,
    REQUESTS,
    call,
    logged_in,  # noqa: F401  (a fixture)
    scripted,
    tool_results,
)
from tests.support.runtime_helpers import agent_row, answer, pending, said, send, start

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("logged_in")]


@pytest.fixture
def conversation(alice):
    DELETED.clear()
    agent_row("test-llm")
    conversation = start(alice, "test-llm")
    conversation.agent.config = {"toolsets": ["test-files"]}
    conversation.agent.save()
    return conversation


def last_result(messages):
    return f"Result: {tool_results(messages)[-1]}"


def test_a_harmless_tool_runs_without_asking(client, conversation):
    scripted([call("file_size", path="a.txt")], last_result)
    send(client, conversation, "how big?")
    assert said(conversation) == ["Result: 500"]
    assert not Part.objects.exists()


def test_a_destructive_tool_runs_once_after_approval(client, conversation):
    scripted([call("delete_file", path="a.txt")], last_result)
    send(client, conversation, "delete it")
    card = pending(conversation)
    assert card.render_kind == "approval"
    assert card.payload["details"] == {"path": "a.txt"}
    assert DELETED == []

    answer(client, card, scope="once")
    assert DELETED == ["a.txt"]
    assert said(conversation) == ["Result: deleted a.txt"]
    assert len(REQUESTS) == 2


def test_a_denied_call_does_nothing_and_the_model_hears_why(client, conversation):
    scripted([call("delete_file", path="a.txt")], last_result)
    send(client, conversation, "delete it")
    answer(client, pending(conversation), action="decline")
    assert DELETED == []
    assert "did not approve" in said(conversation)[0]


def test_approval_for_the_conversation_holds_in_later_turns(client, conversation):
    scripted([call("delete_file", path="a.txt")], last_result)
    send(client, conversation, "delete it")
    answer(client, pending(conversation), scope="conversation")
    scripted([call("delete_file", path="a.txt")], last_result)
    send(client, conversation, "delete it again")
    assert DELETED == ["a.txt", "a.txt"]
    assert Part.objects.count() == 1
    assert Turn.objects.filter(status=Turn.Status.DONE).count() == 2

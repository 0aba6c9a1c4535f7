"""A LangGraph graph served with `ag-ui-langgraph` runs in the chat as it is: its `interrupt()`
is a form, and the answer resumes the graph (the next run's `resume` entry)."""

import pytest
from ag_ui.core import RunAgentInput

from playground.runs.models import Turn
from tests.support.agui_support import LANGGRAPH_SERVER, AguiServer, agents_file, chat_with
from tests.support.runtime_helpers import answer, pending, said, send

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def server(tmp_path):
    started = AguiServer(LANGGRAPH_SERVER, tmp_path / "runs.log")
    yield started
    started.stop()


def test_an_interrupt_is_a_form_and_the_answer_resumes_the_graph(
    settings, tmp_path, client, alice, server
):
    conversation = chat_with(settings, client, alice, agents_file(tmp_path, server.url("paint")))
    send(client, conversation, "paint the walls")
    part = pending(conversation)
    assert part.message == "Which colour for the walls?"
    assert [field for field in part.payload["requestedSchema"]["properties"]] == ["colour"]
    assert Turn.objects.get().status == Turn.Status.WAITING

    answer(client, part, colour="green")
    assert said(conversation)[-1] == "Painted them green."
    first, second = server.runs()
    [entry] = RunAgentInput.model_validate(second).resume
    assert entry.status == "resolved" and entry.payload == {"colour": "green"}
    assert not first.get("resume")

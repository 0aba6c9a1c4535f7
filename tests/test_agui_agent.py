"""An AG-UI agent (Pydantic AI with its own AG-UI adapter) is an agent in the chat: its
`request_input` and `request_approval` calls are forms and cards, and each answer starts the
next run with the tool result. Each run is a recorded step: a replay never sends it again."""

import pytest
from ag_ui.core import RunAgentInput

from elicitation import frontend_tools
from elicitation.models import Part
from playground.runs.models import Step, Turn
from tests.support.agui_support import PYDANTIC_SERVER, AguiServer, agents_file, chat_with
from tests.support.runtime_helpers import answer, pending, said, send

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    started = AguiServer(PYDANTIC_SERVER, tmp_path_factory.mktemp("agui") / "runs.log")
    yield started
    started.stop()


@pytest.fixture
def chat(settings, tmp_path, client, alice, server):
    def start(scenario: str):
        path = agents_file(tmp_path, server.url(scenario))
        return chat_with(settings, client, alice, path)

    return start


def test_it_asks_through_request_input_and_continues_with_the_answer(chat, client, server):
    conversation = chat("ask")
    send(client, conversation, "paint it")
    part = pending(conversation)
    assert part.message == "Which colour?"
    assert Turn.objects.get().status == Turn.Status.WAITING
    assert len(server.runs("ask")) == 1

    answer(client, part, colour="green")
    assert said(conversation) == ["You picked green."]
    assert Turn.objects.get().status == Turn.Status.DONE
    runs = server.runs("ask")
    assert len(runs) == 2  # the replay after the answer did not send the first run again
    turn = Turn.objects.get()
    assert [run["runId"] for run in runs] == [f"{turn.pk}-0", f"{turn.pk}-1"]
    assert {run["threadId"] for run in runs} == {str(conversation.pk)}
    [result] = [m for m in runs[1]["messages"] if m["role"] == "tool"]
    assert result["toolCallId"] == part.tool_call_id
    assert '"colour": "green"' in result["content"]


def test_a_turn_that_asks_twice_has_three_runs(chat, client, server):
    conversation = chat("twice")
    send(client, conversation, "a shirt")
    answer(client, pending(conversation), colour="red")
    assert pending(conversation).message == "Which size?"
    answer(client, pending(conversation), size="large")
    assert said(conversation) == ["A large red one."]
    turn = Turn.objects.get()
    assert [run["runId"] for run in server.runs("twice")] == [f"{turn.pk}-{i}" for i in range(3)]


def test_a_degraded_payload_is_told_to_the_agent_which_corrects_it(chat, client, server):
    conversation = chat("degraded")
    send(client, conversation, "paint it")
    degraded = Part.objects.get(state=Part.State.DEGRADED)
    corrected = pending(conversation)
    assert corrected.message == "Which colour, then?"
    told = [m for m in server.runs("degraded")[1]["messages"] if m["role"] == "tool"]
    assert told[0]["content"] == f"elicitation: unsupported payload — {degraded.degraded_reason}"
    answer(client, corrected, colour="red")
    assert said(conversation) == ["Thanks: red."]


def test_an_approval_is_an_approval_card(chat, client, server):
    conversation = chat("approval")
    send(client, conversation, "clean up")
    card = pending(conversation)
    assert card.render_kind == "approval"
    assert card.message == "Delete the staging database?"
    assert card.payload["details"] == {"Database": "staging"}
    answer(client, card, scope="once")
    assert said(conversation) == ["Deleted."]


def test_a_declined_approval_is_told_to_the_agent(chat, client, server):
    conversation = chat("approval")
    send(client, conversation, "clean up")
    answer(client, pending(conversation), action="decline")
    assert said(conversation) == ["Kept it."]


def test_the_agents_own_tool_calls_are_shown_as_steps(chat, client, server):
    conversation = chat("lookup")
    send(client, conversation, "weather?")
    assert said(conversation) == ["It is sunny there."]
    step = Step.objects.get(name="tool lookup")
    assert (step.arguments, step.outcome, step.status) == ('city: "Lisbon"', "sunny", "done")
    assert step.started_at <= step.finished_at
    page = client.get(conversation.get_absolute_url()).content.decode()
    assert "tool lookup" in page and "city: &quot;Lisbon&quot;" in page


def test_a_replay_shows_the_agents_steps_once(chat, client, server):
    conversation = chat("umbrella")
    send(client, conversation, "an umbrella")
    answer(client, pending(conversation), colour="red")
    assert said(conversation) == ["A red umbrella."]
    assert Step.objects.filter(name="tool lookup").count() == 1
    assert len(server.runs("umbrella")) == 2


def test_agent_text_is_never_raw_html(chat, client, alice, server):
    conversation = chat("html")
    send(client, conversation, "hi")
    page = client.get(conversation.get_absolute_url()).content.decode()
    assert "<script>alert" not in page
    assert "<strong>bold</strong>" in page


def test_each_run_is_recorded_with_its_input_and_every_event(chat, client, server):
    conversation = chat("ask")
    send(client, conversation, "paint it")
    turn = Turn.objects.get()
    step = Step.objects.get(turn=turn, name=f"AG-UI run {turn.pk}-0")
    types = [event["type"] for event in step.result["events"]]
    assert types[0] == "RUN_STARTED" and types[-1] == "RUN_FINISHED"
    assert "TOOL_CALL_ARGS" in types
    assert step.result["input"] == server.runs("ask")[-1]


def test_what_we_send_is_a_valid_run_agent_input_with_the_contracts_tools(chat, client, server):
    conversation = chat("twice")
    send(client, conversation, "a shirt")
    answer(client, pending(conversation), colour="red")
    for body in server.runs("twice")[-2:]:
        RunAgentInput.model_validate(body)
        assert body["protocolVersion"] == "1.0"
        tools = {tool["name"]: tool for tool in body["tools"]}
        assert tools["request_input"]["description"] == frontend_tools.REQUEST_INPUT_DESCRIPTION
        assert tools["request_approval"]["description"] == (
            frontend_tools.REQUEST_APPROVAL_DESCRIPTION
        )


def test_the_next_turn_carries_the_conversation_on(chat, client, server):
    conversation = chat("ask")
    send(client, conversation, "paint it")
    answer(client, pending(conversation), colour="green")
    send(client, conversation, "again")
    last = server.runs("ask")[-1]
    users = [m["content"] for m in last["messages"] if m["role"] == "user"]
    assert users == ["paint it", "again"]

"""An LLM agent's model asks through `request_input`; the answers come back as tool results."""

import pydantic_ai
import pytest

from elicitation import contract
from elicitation.models import Part
from playground.runs.models import Step, Turn
from tests.support.admin_support import chat_client, make_staff
from tests.support.llm_support import (
    REQUESTS,
    call,
    logged_in,  # noqa: F401  (a fixture)
    scripted,
    tool_results,
)
from tests.support.runtime_helpers import answer, pending, said, send, start

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("logged_in")]

COLOUR = {
    "type": "object",
    "properties": {"colour": {"type": "string", "enum": ["red", "green"]}},
    "required": ["colour"],
}


def ask_colour(client, alice, then):
    """Start a conversation whose model asks for a colour, then replies with `then`."""
    scripted([call("request_input", message="Which colour?", requestedSchema=COLOUR)], then)
    conversation = start(alice, "test-llm")
    send(client, conversation, "paint it")
    return conversation


def test_it_asks_then_continues_with_the_answer(client, alice):
    picked = lambda messages: f"You picked {tool_results(messages)[-1]['content']['colour']}."  # noqa: E731
    conversation = ask_colour(client, alice, picked)
    part = pending(conversation)
    assert part.message == "Which colour?"
    assert Turn.objects.get().status == Turn.Status.WAITING

    answer(client, part, colour="green")
    assert said(conversation) == ["You picked green."]
    assert Turn.objects.get().status == Turn.Status.DONE
    # The replay after the answer did not ask the model again for the recorded question.
    assert len(REQUESTS) == 2


def test_a_bad_schema_gets_the_reason_and_the_model_corrects_it(client, alice):
    nested = {"type": "object", "properties": {"a": {"type": "object", "properties": {}}}}
    scripted(
        [call("request_input", message="Which colour?", requestedSchema=nested)],
        [call("request_input", message="Which colour?", requestedSchema=COLOUR)],
        "Thanks.",
    )
    conversation = start(alice, "test-llm")
    send(client, conversation, "paint it")
    degraded = Part.objects.get(state=Part.State.DEGRADED)
    error = tool_results(REQUESTS[1])[-1]
    assert error == f"elicitation: unsupported payload — {degraded.degraded_reason}"
    answer(client, pending(conversation), colour="red")
    assert said(conversation) == ["Thanks."]
    assert len(REQUESTS) == 3


TOO_MANY = [f"option {n}" for n in range(contract.MAX_OPTIONS + 1)]


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"password": {"type": "string"}}},
        {"type": "object", "properties": {"pick": {"type": "string", "enum": TOO_MANY}}},
    ],
    ids=["secret", "too many options"],
)
def test_a_schema_that_cannot_be_shown_gets_no_form(client, alice, schema):
    scripted([call("request_input", message="Tell me", requestedSchema=schema)], "Never mind.")
    conversation = start(alice, "test-llm")
    send(client, conversation, "go")
    assert not Part.objects.filter(state=Part.State.PENDING).exists()
    assert tool_results(REQUESTS[1])[-1].startswith("elicitation: unsupported payload — ")
    assert said(conversation) == ["Never mind."]


def test_a_decline_reaches_the_model(client, alice):
    conversation = ask_colour(
        client, alice, lambda messages: f"Okay ({tool_results(messages)[-1]['action']})."
    )
    answer(client, pending(conversation), action="decline")
    assert said(conversation) == ["Okay (decline)."]


def test_two_questions_in_one_turn_are_asked_one_after_the_other(client, alice):
    size = {"type": "object", "properties": {"size": {"type": "integer"}}, "required": ["size"]}
    scripted(
        [
            call("request_input", message="Which colour?", requestedSchema=COLOUR),
            call("request_input", message="Which size?", requestedSchema=size),
        ],
        lambda messages: "Got {} and {}.".format(
            *[result["content"] for result in tool_results(messages)]
        ),
    )
    conversation = start(alice, "test-llm")
    send(client, conversation, "paint it")
    answer(client, pending(conversation), colour="red")
    answer(client, pending(conversation), size="3")
    assert said(conversation) == ["Got {'colour': 'red'} and {'size': 3}."]
    assert len(REQUESTS) == 2


def test_an_answers_replay_picks_up_where_the_model_asked(client, alice, monkeypatch):
    """Where each run of the model that asked ended is kept with the turn: an answer's replay
    runs the model once, to its next request, not again through every earlier question (the
    replay's time grew with each question the turn asked)."""
    size = {"type": "object", "properties": {"size": {"type": "integer"}}, "required": ["size"]}
    scripted(
        [call("request_input", message="Which colour?", requestedSchema=COLOUR)],
        [call("request_input", message="Which size?", requestedSchema=size)],
        lambda messages: "Got {} and {}.".format(
            *[result["content"] for result in tool_results(messages)]
        ),
    )
    runs = []
    run = pydantic_ai.Agent.run

    async def counted(self, *args, **options):
        runs.append(options.get("deferred_tool_results"))
        return await run(self, *args, **options)

    monkeypatch.setattr(pydantic_ai.Agent, "run", counted)
    conversation = start(alice, "test-llm")
    send(client, conversation, "paint it")
    answer(client, pending(conversation), colour="red")
    runs.clear()
    answer(client, pending(conversation), size="3")

    assert said(conversation) == ["Got {'colour': 'red'} and {'size': 3}."]
    assert [list(answers.calls) for answers in runs] == [["call-2-0"]]  # the last run only
    assert len(REQUESTS) == 3


def test_the_history_carries_across_turns(client, alice):
    scripted("Hello Ada.", lambda messages: f"{len(messages)} messages so far.")
    conversation = start(alice, "test-llm")
    send(client, conversation, "I am Ada")
    send(client, conversation, "who am I?")
    # The second request holds the first turn's request and reply, and the new message.
    assert said(conversation) == ["Hello Ada.", "3 messages so far."]
    assert Step.objects.filter(name="message history after the turn").count() == 2


def test_token_usage_is_recorded_per_turn(client, alice):
    scripted("Hello there.")
    conversation = start(alice, "test-llm")
    send(client, conversation, "hi")
    turn = Turn.objects.get()
    assert turn.input_tokens > 0 and turn.output_tokens > 0
    admin = chat_client(make_staff("ruth", superuser=True))
    page = admin.get(f"/admin/playground/turn/{turn.pk}/change/").content.decode()
    assert "Input tokens" in page and f">{turn.input_tokens}<" in page

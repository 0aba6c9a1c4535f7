"""A model's first words show as they arrive, however fast it answers: the throttle of the
live text (every LIVE_TEXT_SECONDS) starts after them, not before. Words that arrive in one
burst with them show with them, and a reply that arrives whole goes straight to its message."""

import asyncio

import pytest
from asgiref.sync import sync_to_async
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

from elicitation.models import Part
from playground.chat import live_text
from playground.chat.live_text import TurnStopped
from playground.llm_agents import recording
from playground.llm_agents.turns import run_llm_turn
from playground.runs import tasks
from playground.runs.agents import agent
from playground.runs.models import Step, Turn
from tests.support.llm_support import logged_in  # noqa: F401
from tests.support.runtime_helpers import open_tab, said, send, start

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("logged_in")]

SEEN: list[str] = []
STOP: list = []  # the person's Stop, posted by the model below


async def _fast_stream(messages, info: AgentInfo):
    yield "Hello"
    # The model goes on only once what the tabs were shown is stored on the turn: a first
    # word held back behind the throttle would keep it waiting until the test's timeout.
    SEEN.append(await _shown("Hello"))
    yield " there."


async def _whole_stream(messages, info: AgentInfo):
    for word in ["Hello", " there", "."]:
        yield word


async def _asks_as_stopped(messages, info: AgentInfo):
    yield {0: DeltaToolCall(name="request_input", json_args='{"message": "Which colour?", ')}
    await sync_to_async(STOP[0])()  # the Stop lands as the model's last bytes come in
    yield {0: DeltaToolCall(json_args='"requestedSchema": {"type": "object", "properties": {}}}')}


async def _shown(text: str) -> str:
    for _ in range(600):
        turn = await Turn.objects.filter(status=Turn.Status.RUNNING).afirst()
        if turn.partial_text == text:
            break
        await asyncio.sleep(0.05)
    return turn.partial_text


@agent("test-llm-fast", name="Fast model", listed=False)
async def fast_llm(ctx, message: str) -> None:
    model = FunctionModel(stream_function=_fast_stream)
    await run_llm_turn(ctx, model, provider_label='The model provider "fast"')


@agent("test-llm-whole", name="Model answering at once", listed=False)
async def whole_llm(ctx, message: str) -> None:
    model = FunctionModel(stream_function=_whole_stream)
    await run_llm_turn(ctx, model, provider_label='The model provider "whole"')


@agent("test-llm-stopped", name="Model stopped at its end", listed=False)
async def stopped_llm(ctx, message: str) -> None:
    model = FunctionModel(stream_function=_asks_as_stopped)
    await run_llm_turn(ctx, model, provider_label='The model provider "stopped"')


@pytest.fixture
def unhurried(monkeypatch):
    """No timer falls due within a turn, however busy the machine: the burst's wait for more
    words, the live text's throttle and the "working" notice (on a loaded CI machine, 2 ms
    between two words was once enough to show the first one alone)."""
    for module, name in [
        (recording, "BURST_SECONDS"),
        (recording, "LIVE_TEXT_SECONDS"),
        (live_text, "LIVE_TEXT_SECONDS"),
        (tasks, "WORKING_NOTICE_SECONDS"),
    ]:
        monkeypatch.setattr(module, name, 60)


def test_the_first_words_show_before_the_reply_ends(client, alice):
    SEEN.clear()
    conversation = start(alice, "test-llm-fast")
    send(client, conversation, "hi")
    assert SEEN == ["Hello"]
    assert said(conversation) == ["Hello there."]


def test_a_reply_that_arrives_whole_goes_straight_to_its_message(client, alice, unhurried):
    conversation = start(alice, "test-llm-whole")
    tab = open_tab(conversation.pk)
    send(client, conversation, "hi")
    assert said(conversation) == ["Hello there."]
    turn = Turn.objects.get().pk
    # The live text's own div (cleared, it comes with the model step's fragment, in one push).
    live = [
        html.split("</div>")[0]
        for html in tab()
        if html.lstrip().startswith(f'<div id="turn-{turn}-live"')
    ]
    # "Thinking…", then hidden as the message comes: never the words one by one.
    assert [("Thinking" in html, "Hello" in html, " hidden" in html) for html in live] == [
        (True, False, False),
        (False, False, True),
    ]


def test_the_model_steps_end_clears_the_live_text_and_says_the_reply_in_one_hop(
    client, alice, hops, unhurried
):
    conversation = start(alice, "test-llm-whole")
    tab = open_tab(conversation.pk)
    send(client, conversation, "hi")
    assert said(conversation) == ["Hello there."]
    # The model step: one hop as it starts, with "Thinking…" stored in it, and one as it
    # ends, with the live text cleared and the reply saved in it (these were five hops, three
    # of them one after the other between the model's last byte and the reply).
    model_step = hops.index("_start_step")
    assert hops[model_step + 1] == "_finish_step", hops
    assert not [hop for hop in hops if hop.endswith("_store") or "message" in hop], hops
    # A push as it starts: "Thinking…" with the step running; one as it ends: the live text
    # hidden, the reply shown, the step done.
    pushes = tab()
    [begin] = [html for html in pushes if "Thinking" in html]
    assert 'data-state="step-running"' in begin, begin
    [end] = [html for html in pushes if "Hello there." in html]
    assert " hidden" in end and 'data-state="step-done"' in end, end


def test_a_stop_as_the_models_stream_ends_asks_nothing(client, alice):
    conversation = start(alice, "test-llm-stopped")
    STOP[:] = [lambda: client.post(f"/c/{conversation.pk}/stop", HTTP_HX_REQUEST="true")]
    send(client, conversation, "hi")
    # No live check ran during the stream (no text, under a second): the step's end finds
    # the turn stopped, and the run lets go before it carries out the model's call.
    assert Turn.objects.get().status == Turn.Status.STOPPED
    assert not Part.objects.filter(conversation=conversation).exists()
    step = Step.objects.get(name__startswith="model request")
    assert (step.status, step.outcome) == (Step.Status.INTERRUPTED, TurnStopped.step_outcome)


ASKED: list = []  # the requests the model below was sent


async def _counts(messages, info: AgentInfo):
    ASKED.append(messages)
    yield "Hello."


@agent("test-llm-stopped-first", name="Model stopped before it is asked", listed=False)
async def stopped_first_llm(ctx, message: str) -> None:
    await sync_to_async(STOP[0])()  # the Stop lands before the model is asked
    model = FunctionModel(stream_function=_counts)
    await run_llm_turn(ctx, model, provider_label='The model provider "counted"')


def test_a_stop_before_the_model_is_asked_sends_it_nothing(client, alice):
    ASKED.clear()
    conversation = start(alice, "test-llm-stopped-first")
    STOP[:] = [lambda: client.post(f"/c/{conversation.pk}/stop", HTTP_HX_REQUEST="true")]
    send(client, conversation, "hi")
    # The model step's start finds the turn stopped ("Thinking…" is stored in its hop): the
    # run lets go there, and the request never goes out.
    assert Turn.objects.get().status == Turn.Status.STOPPED
    assert ASKED == []
    step = Step.objects.get(name__startswith="model request")
    assert (step.status, step.outcome) == (Step.Status.INTERRUPTED, TurnStopped.step_outcome)

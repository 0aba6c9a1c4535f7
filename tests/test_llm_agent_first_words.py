"""A model's first words show as they arrive, however fast it answers: the throttle of the
live text (every LIVE_TEXT_SECONDS) starts after them, not before. Words that arrive in one
burst with them show with them, and a reply that arrives whole goes straight to its message."""

import asyncio

import pytest
from pydantic_ai.models.function import AgentInfo, FunctionModel

from llm_agents.turns import run_llm_turn
from playground.agents import agent
from playground.models import Turn
from tests.llm_support import logged_in  # noqa: F401
from tests.runtime_helpers import open_tab, said, send, start

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("logged_in")]

SEEN: list[str] = []


async def _fast_stream(messages, info: AgentInfo):
    yield "Hello"
    # The model goes on only once what the tabs were shown is stored on the turn: a first
    # word held back behind the throttle would keep it waiting until the test's timeout.
    SEEN.append(await _shown("Hello"))
    yield " there."


async def _whole_stream(messages, info: AgentInfo):
    for word in ["Hello", " there", "."]:
        yield word


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


def test_the_first_words_show_before_the_reply_ends(client, alice):
    SEEN.clear()
    conversation = start(alice, "test-llm-fast")
    send(client, conversation, "hi")
    assert SEEN == ["Hello"]
    assert said(conversation) == ["Hello there."]


def test_a_reply_that_arrives_whole_goes_straight_to_its_message(client, alice):
    conversation = start(alice, "test-llm-whole")
    tab = open_tab(conversation.pk)
    send(client, conversation, "hi")
    assert said(conversation) == ["Hello there."]
    turn = Turn.objects.get().pk
    live = [html for html in tab() if html.lstrip().startswith(f'<div id="turn-{turn}-live"')]
    # "Thinking…", then hidden as the message comes: never the words one by one.
    assert [("Thinking" in html, "Hello" in html, " hidden" in html) for html in live] == [
        (True, False, False),
        (False, False, True),
    ]

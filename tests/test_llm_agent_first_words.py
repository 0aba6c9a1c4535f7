"""A model's first words show as they arrive, however fast it answers: the throttle of the
live text (every LIVE_TEXT_SECONDS) starts after them, not before."""

import pytest
from pydantic_ai.models.function import AgentInfo, FunctionModel

from llm_agents.turns import run_llm_turn
from playground.agents import agent
from playground.models import Turn
from tests.llm_support import logged_in  # noqa: F401
from tests.runtime_helpers import said, send, start

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("logged_in")]

SEEN: list[str] = []


async def _fast_stream(messages, info: AgentInfo):
    yield "Hello"
    # The playground asks for the next words only once it handled the first: what the tabs
    # were shown is stored on the turn by now (within milliseconds of the first word).
    turn = await Turn.objects.filter(status=Turn.Status.RUNNING).afirst()
    SEEN.append(turn.partial_text)
    yield " there."


@agent("test-llm-fast", name="Fast model", listed=False)
async def fast_llm(ctx, message: str) -> None:
    model = FunctionModel(stream_function=_fast_stream)
    await run_llm_turn(ctx, model, provider_label='The model provider "fast"')


def test_the_first_words_show_before_the_reply_ends(client, alice):
    SEEN.clear()
    conversation = start(alice, "test-llm-fast")
    send(client, conversation, "hi")
    assert SEEN == ["Hello"]
    assert said(conversation) == ["Hello there."]

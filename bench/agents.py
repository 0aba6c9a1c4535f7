"""The bench agent: one typed question per turn, then a reply that quotes the answer."""

import asyncio

from playground.agents import agent
from playground.builtin_agents.deploy_assistant import ENVIRONMENTS

# The Deploy assistant's first question: a realistic select plus a text field.
QUESTION = ENVIRONMENTS


@agent("bench-ask", name="Bench: one question", description="Asks one question per message.")
async def bench_ask(ctx, message: str) -> None:
    answer = await ctx.elicit(f"Question {message}: which environment?", QUESTION)
    await ctx.say(f"Reply {message}: {answer.content.get('environment', answer.action)}.")


async def _slow_call() -> str:
    await asyncio.sleep(1)  # a model or HTTP call that takes a second
    return "done"


@agent("bench-slow", name="Bench: one slow step", description="Awaits a 1 s step, then replies.")
async def bench_slow(ctx, message: str) -> None:
    await ctx.say(f"Reply {message}: {await ctx.step('slow call', _slow_call)}.")

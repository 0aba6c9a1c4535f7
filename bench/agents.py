"""The bench agents: one typed question per turn (then a reply that quotes the answer), or
one bare push (push_latency's baseline), or one slow step."""

import asyncio
import time

from playground.agents import agent
from playground.builtin_agents.deploy_assistant import ENVIRONMENTS
from playground.push import push_html

# The Deploy assistant's first question: a realistic select plus a text field.
QUESTION = ENVIRONMENTS


@agent("bench-ask", name="Bench: one question", description="Asks one question per message.")
async def bench_ask(ctx, message: str) -> None:
    if message.startswith("bare "):
        # What a question's push is read against: a bare push of the same size from the same
        # place (in the run, on the runner's loop, through the same layer), stamped when sent.
        # The turn then ends and pushes its status, as a question's turn parks and pushes it.
        size = int(message.split()[1])
        stamp = f'<template data-bench-sent="{time.time():.6f}">'
        await push_html(ctx.conversation.pk, stamp.ljust(size, "x") + "</template>")
        return
    answer = await ctx.elicit(f"Question {message}: which environment?", QUESTION)
    await ctx.say(f"Reply {message}: {answer.content.get('environment', answer.action)}.")


async def _slow_call() -> str:
    await asyncio.sleep(1)  # a model or HTTP call that takes a second
    return "done"


@agent("bench-slow", name="Bench: one slow step", description="Awaits a 1 s step, then replies.")
async def bench_slow(ctx, message: str) -> None:
    await ctx.say(f"Reply {message}: {await ctx.step('slow call', _slow_call)}.")


@agent("bench-tick", name="Bench: one line", description="Says one line (a scheduled run).")
async def bench_tick(ctx, message: str) -> None:
    await ctx.say("tick")  # its time is when the run started (schedules' delay)

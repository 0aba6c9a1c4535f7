"""The bench agents: one typed question per turn (then a reply that quotes the answer), or
one bare push, or a question's durable floor (push_latency's baseline), or one slow step."""

import asyncio
import time

from asgiref.sync import sync_to_async
from django.utils import timezone

from elicitation.models import Part
from playground.chat import fragments
from playground.chat.push import push_html
from playground.runs.agents import agent
from playground.runs.builtin_agents.deploy_assistant import ENVIRONMENTS
from playground.runs.runtime import build_part, offered_actions

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
    if message.startswith("floor "):
        # push_latency's baseline, the durable floor of a question: the least a question that
        # survives a restart must do before it shows, done the plainest way, from the same
        # place: its row (built beforehand) INSERTed by the ORM, its form rendered from the
        # same template, pushed through the same layer; timed like a question, from the row's
        # `created_at`. The turn then ends and pushes its status, as a question's turn parks.
        label = message.split()[1]
        part = await sync_to_async(_floor_row)(ctx.turn, f"Question {label}: which environment?")
        html = await sync_to_async(_insert_and_render)(part)
        stamped = f'<template data-bench-floor="{part.pk}">{html}</template>'
        await push_html(ctx.conversation.pk, stamped)
        return
    answer = await ctx.elicit(f"Question {message}: which environment?", QUESTION)
    in_hand = time.time()  # answer_latency: when the run has the answer
    chosen = answer.content.get("environment", answer.action)
    await ctx.say(f"Reply {message}: {chosen}. Answer in hand at {in_hand:.6f}.")


def _floor_row(turn, message: str) -> Part:
    payload = {"message": message, "requestedSchema": QUESTION}
    return build_part(
        turn=turn,
        call_index=0,
        kind_name="elicitation",
        payload=payload,
        allowed_actions=offered_actions(None),
        tool_call_id=f"call_{turn.pk}_0",  # as `ctx.elicit` names its first call
    )


def _insert_and_render(part: Part) -> str:
    part.pushed_at = timezone.now()  # as a question's row has it
    part.save()
    return fragments.render_new_part(part)


async def _slow_call() -> str:
    await asyncio.sleep(1)  # a model or HTTP call that takes a second
    return "done"


@agent("bench-slow", name="Bench: one slow step", description="Awaits a 1 s step, then replies.")
async def bench_slow(ctx, message: str) -> None:
    await ctx.say(f"Reply {message}: {await ctx.step('slow call', _slow_call)}.")


@agent("bench-tick", name="Bench: one line", description="Says one line (a scheduled run).")
async def bench_tick(ctx, message: str) -> None:
    await ctx.say("tick")  # its time is when the run started (schedules' delay)

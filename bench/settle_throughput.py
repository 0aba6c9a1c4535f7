"""settle_throughput: full answer cycles per second with 50 conversations at once.

A cycle: POST the answer, validate, settle, push the chip, resume the run, and the agent's
reply arriving at the conversation's websocket. Each of 50 clients works through the
questions already waiting in its conversation, one cycle after another; its tab is open
before the clock starts.

The baseline: the answer floor's cycles per second (bench/answer_floor.py) with the same 50
clients, each in a conversation of its own with the same questions waiting, on the same
server: POST the answer to the floor, and its chip arriving at the conversation's websocket;
the floor's cycles end when its waiters have read the last answer back. Half of each floor
conversation's questions are answered before ours and half after; the baseline is the mean
of the two. Target: cycles/s >= 0.75x the floor's.
"""

import asyncio
import contextlib
import re
import time
from functools import partial

from bench.client import FLOOR_ANSWER, Person, floor_waiters, read_back
from bench.runner import bench_main

CONVERSATIONS = 50
QUESTION = re.compile(r'<article id="part-(\d+)"[^>]*data-state="pending".*?Question (\S+):', re.S)


async def measure(stack, cycles_each: int) -> dict:
    half = cycles_each // 2
    async with Person.logged_in(stack) as person, floor_waiters(stack) as woken:
        ours = [await person.start_conversation() for _ in range(CONVERSATIONS)]
        floor = [await person.start_conversation() for _ in range(CONVERSATIONS)]
        await person.ask(ours + floor, cycles_each)  # the questions waiting to be answered

        before = await _floor(person, floor, half, woken)
        cycles_per_second = await _ours(person, ours)
        after = await _floor(person, floor, cycles_each - half, woken)
    baseline = (before + after) / 2
    return {
        "conversations": CONVERSATIONS,
        "cycles": CONVERSATIONS * cycles_each,
        "cycles_per_s": cycles_per_second,
        "floor_cycles_per_s": baseline,
        "floor_before_after": f"{before:.1f} / {after:.1f}",
        "ratio": cycles_per_second / baseline,
        "target": "ratio >= 0.75 (the answer floor's cycles/s)",
        "met": cycles_per_second / baseline >= 0.75,
    }


async def _ours(person: Person, conversations: list[int]) -> float:
    """Answer every conversation's waiting questions, 50 clients at once, each cycle until the
    reply shows; return cycles per second (the tabs open before the clock starts)."""
    async with contextlib.AsyncExitStack() as stack:
        tabs = [await stack.enter_async_context(person.tab(c)) for c in conversations]
        resyncs = [(await tab.wait_for("."))[1] for tab in tabs]
        started = time.perf_counter()
        cycles = await asyncio.gather(*map(partial(_answer_all, person), tabs, resyncs))
        return sum(cycles) / (time.perf_counter() - started)


async def _answer_all(person: Person, tab, resync: str) -> int:
    """Answer a conversation's waiting questions in turn, each time until the reply shows."""
    questions = QUESTION.findall(resync)
    for part_id, text in questions:
        await person.post(f"/parts/{part_id}/settle", {"action": "accept", **FLOOR_ANSWER})
        await tab.wait_for(rf'<article id="part-{part_id}"[^>]*data-state="submitted"')
        await tab.wait_for(rf"Reply {text}: staging\.")
    return len(questions)


async def _floor(person: Person, conversations: list[int], count: int, woken) -> float:
    """Answer `count` of each conversation's waiting questions through the floor, 50 clients
    at once; return the floor's cycles per second, to its waiters' last read-back (the tabs
    open before the clock starts)."""
    answered: list[int] = []

    async def client(tab, resync: str) -> None:
        for part_id, _ in QUESTION.findall(resync)[:count]:
            await person.post(f"/bench/answer-floor/{part_id}", FLOOR_ANSWER)
            await tab.wait_for(rf'<article id="part-{part_id}"[^>]*data-state="submitted"')
            answered.append(int(part_id))

    async with contextlib.AsyncExitStack() as stack:
        tabs = [await stack.enter_async_context(person.tab(c)) for c in conversations]
        resyncs = [(await tab.wait_for("."))[1] for tab in tabs]
        started = time.time()
        await asyncio.gather(*map(client, tabs, resyncs))
        read = await read_back(person, woken, answered)  # some may still be reading
    return len(answered) / (max(read[pk] for pk in answered) - started)


def run(stack, quick: bool, **options) -> dict:
    return asyncio.run(measure(stack, cycles_each=4 if quick else 10))


if __name__ == "__main__":
    bench_main("settle_throughput", run)

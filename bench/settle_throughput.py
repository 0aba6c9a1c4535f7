"""settle_throughput: full answer cycles per second with 50 conversations at once.

A cycle: POST the answer, validate, settle, push the chip, resume the run, and the agent's
reply arriving at the conversation's websocket. Each of 50 clients works through the
questions already waiting in its conversation, one cycle after another. The baseline: the
same 50 clients each POSTing to a bare view that saves one row, same server, same database,
measured before and after the cycles (their mean). Target: cycles/s >= 1/3 of baseline/s.
"""

import asyncio
import re
import time

from bench.client import Person
from bench.runner import bench_main

CONVERSATIONS = 50
QUESTION = re.compile(r'<article id="part-(\d+)"[^>]*data-state="pending".*?Question (\S+):', re.S)


async def measure(stack, cycles_each: int) -> dict:
    async with Person.logged_in(stack) as person:
        conversations = [await person.start_conversation() for _ in range(CONVERSATIONS)]
        await person.ask(conversations, cycles_each)  # the questions waiting to be answered

        before = await _baseline(person, cycles_each)
        started = time.perf_counter()
        await asyncio.gather(*(_answer_all(person, c) for c in conversations))
        cycles_per_second = CONVERSATIONS * cycles_each / (time.perf_counter() - started)
        after = await _baseline(person, cycles_each)
    baseline = (before + after) / 2
    return {
        "conversations": CONVERSATIONS,
        "cycles": CONVERSATIONS * cycles_each,
        "cycles_per_s": cycles_per_second,
        "baseline_posts_per_s": baseline,
        "baseline_before_after": f"{before:.0f} / {after:.0f}",
        "ratio": cycles_per_second / baseline,
        "target": "ratio >= 0.333",
        "met": cycles_per_second / baseline >= 1 / 3,
    }


async def _answer_all(person: Person, conversation: int) -> None:
    """Answer the conversation's waiting questions in turn, each time until the reply shows."""
    async with person.tab(conversation) as tab:
        _, resync = await tab.wait_for(".")
        for part_id, text in QUESTION.findall(resync):
            answer = {"action": "accept", "answer.environment": "staging", "answer.version": "v1"}
            await person.post(f"/parts/{part_id}/settle", answer)
            await tab.wait_for(rf'<article id="part-{part_id}"[^>]*data-state="submitted"')
            await tab.wait_for(rf"Reply {text}: staging\.")


async def _baseline(person: Person, posts_each: int) -> float:
    async def client() -> None:
        for _ in range(posts_each):
            await person.post("/bench/save-row")

    started = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(CONVERSATIONS)))
    return CONVERSATIONS * posts_each / (time.perf_counter() - started)


def run(stack, quick: bool, **options) -> dict:
    return asyncio.run(measure(stack, cycles_each=4 if quick else 10))


if __name__ == "__main__":
    bench_main("settle_throughput", run)

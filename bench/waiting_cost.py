"""waiting_cost: what pending questions cost the servers while nobody answers them.

1. Warm up (a few full question-and-answer cycles), then measure every server process idle
   for `--idle` seconds with no question pending: CPU time used, RSS, and a census of the web
   process (asyncio tasks, coroutine objects, threads, Part/Turn objects in memory).
2. Ask half of the questions through the same running servers (POST a message, the agent
   asks), wait until every run has stopped to wait, and note RSS and the census.
3. Ask the other half (10,000 across 1,000 conversations in all), wait again, and measure the
   same idle window. RSS with half vs all of them pending separates a cost per question from
   the memory any busy process keeps after work. Target: no measurable difference: nothing
   held grows with the number pending (under one object per 100 questions), idle CPU under
   1 %, RSS(all) - RSS(half) under 5 MB.
"""

import asyncio
import json
import time
import urllib.request

from bench.client import Person
from bench.runner import bench_main
from bench.stack import cpu_seconds, wait_until

CONCURRENCY = 20
BATCH = 100
HELD = ("loop_tasks", "coroutines", "parts_in_memory", "turns_in_memory")


async def measure(stack, conversations: int, per_conversation: int, idle: float) -> dict:
    total = conversations * per_conversation
    async with Person.logged_in(stack) as person:
        await _warm_up(person)
        none = await _idle_window(stack, person, idle)
        ids = [await person.start_conversation() for _ in range(conversations)]
        half = per_conversation // 2
        await _ask(person, ids, range(half), asked=0)
        await _settle(person, total // 2, none["census"])
        half_rss = {name: p.memory_info().rss / 2**20 for name, p in stack.processes().items()}
        await _ask(person, ids, range(half, per_conversation), asked=total // 2)
        await _settle(person, total, none["census"])
        pending = await _idle_window(stack, person, idle)
    figures = {"pending_questions": total, "idle_s": idle}
    for name in none["processes"]:
        before, after = none["processes"][name], pending["processes"][name]
        figures[f"{name}_cpu_pct_none"] = before["cpu_pct"]
        figures[f"{name}_cpu_pct_pending"] = after["cpu_pct"]
        figures[f"{name}_rss_mb_none"] = before["rss_mb"]
        figures[f"{name}_rss_mb_half"] = half_rss[name]
        figures[f"{name}_rss_mb_all"] = after["rss_mb"]
    for key in (*HELD, "threads", "coroutine_kinds", "coroutines_finished"):
        figures[f"web_{key}_none"] = none["census"][key]
        figures[f"web_{key}_pending"] = pending["census"][key]
    # Per question, not exact: one coroutine more at 1,000 pending (a timer, a pool's reader)
    # is not a cost of waiting; one per question, or one per hundred, would be.
    for key in HELD:
        added = pending["census"][key] - none["census"][key]
        figures[f"web_{key}_per_question"] = added / total
    figures["met"] = (
        all(figures[f"web_{key}_per_question"] < 0.01 for key in HELD)
        and all(stats["cpu_pct"] < 1 for stats in pending["processes"].values())
        and all(figures[f"{name}_rss_mb_all"] - half_rss[name] < 5 for name in half_rss)
    )
    figures["target"] = (
        "held objects < 1 per 100 questions; idle CPU < 1 %; RSS(all) - RSS(half) < 5 MB"
    )
    return figures


async def _settle(person: Person, count: int, baseline: dict) -> float:
    """Wait until `count` questions wait and the runs that asked them have ended."""
    started = time.monotonic()
    await asyncio.to_thread(_wait_until_all_wait, count)

    def runs_ended() -> bool:
        with urllib.request.urlopen(person.stack.url + "/bench/census", timeout=30) as response:
            return json.load(response)["loop_tasks"] <= baseline["loop_tasks"]

    await asyncio.to_thread(wait_until, runs_ended, 120, "the runs did not end")
    return time.monotonic() - started


async def _warm_up(person: Person) -> None:
    conversation = await person.start_conversation()
    async with person.tab(conversation) as tab:
        for number in range(20):
            await person.post(f"/c/{conversation}/send", {"text": f"warm-{number}"})
            _, fragment = await tab.wait_for(r'<article id="part-\d+"[^>]*data-state="pending"')
            part_id = fragment.split('id="part-', 1)[1].split('"', 1)[0]
            answer = {"action": "accept", "answer.environment": "preview"}
            await person.post(f"/parts/{part_id}/settle", answer)
            await tab.wait_for(rf"Reply warm-{number}: preview\.")


async def _idle_window(stack, person: Person, idle: float) -> dict:
    """Measure the server processes over `idle` seconds in which nobody does anything."""
    census = (await person.client.get("/bench/census")).json()
    processes = stack.processes()
    start = {name: cpu_seconds(process) for name, process in processes.items()}
    await asyncio.sleep(idle)  # the idle window being measured, not a wait for a condition
    return {
        "census": census,
        "processes": {
            name: {
                "cpu_pct": 100 * (cpu_seconds(process) - start[name]) / idle,
                "rss_mb": process.memory_info().rss / 2**20,
            }
            for name, process in processes.items()
        },
    }


async def _ask(person: Person, conversations: list[int], numbers: range, asked: int) -> None:
    """Ask in batches, each waited out: a burst of thousands of runs queued at once would
    measure the burst (its memory high-water mark), not what waiting questions cost."""
    items = [(conversation, number) for number in numbers for conversation in conversations]

    async def client(share: list[tuple[int, int]]) -> None:
        for conversation, number in share:
            await person.post(f"/c/{conversation}/send", {"text": f"{conversation}-{number}"})

    for start in range(0, len(items), BATCH):  # a batch never has a conversation twice
        batch = items[start : start + BATCH]
        await asyncio.gather(*(client(batch[i::CONCURRENCY]) for i in range(CONCURRENCY)))
        await asyncio.to_thread(_wait_until_all_wait, asked + start + len(batch))


def _wait_until_all_wait(count: int) -> None:
    from elicitation.models import Part
    from playground.runs.models import Turn

    unfinished = [Turn.Status.QUEUED, Turn.Status.RUNNING]
    wait_until(
        lambda: (
            Part.objects.filter(state=Part.State.PENDING).count() >= count
            and not Turn.objects.filter(status__in=unfinished).exists()
        ),
        3600,
        f"the {count} questions were not all asked",
    )


def run(stack, quick: bool, idle: float, **options) -> dict:
    size = (100, 10) if quick else (1000, 10)
    return asyncio.run(measure(stack, *size, idle=idle))


if __name__ == "__main__":
    bench_main("waiting_cost", run)

"""waiting_cost: what pending questions cost the servers while nobody answers them.

Phase 1: warm up (a few full question-and-answer cycles), then measure every server process
idle for `--idle` seconds with no question pending: CPU time used, RSS, and a census of the
web process (asyncio tasks, coroutine objects, threads, Part/Turn objects in memory).
Phase 2: ask 10,000 questions across 1,000 conversations through the same running servers
(POST a message, the agent asks), wait until every run has stopped to wait, then measure
the same idle window again. Target: no measurable difference (nothing polls, nothing held).
"""

import asyncio

from bench.client import Person
from bench.runner import bench_main
from bench.stack import wait_until

CONCURRENCY = 20


async def measure(stack, conversations: int, per_conversation: int, idle: float) -> dict:
    async with Person.logged_in(stack) as person:
        await _warm_up(person)
        none = await _idle_window(stack, person, idle)
        await _ask(person, conversations, per_conversation)
        await asyncio.to_thread(_wait_until_all_wait, conversations * per_conversation)
        pending = await _idle_window(stack, person, idle)
    figures = {"pending_questions": conversations * per_conversation, "idle_s": idle}
    for name in none["processes"]:
        before, after = none["processes"][name], pending["processes"][name]
        figures[f"{name}_cpu_pct_none"] = before["cpu_pct"]
        figures[f"{name}_cpu_pct_pending"] = after["cpu_pct"]
        figures[f"{name}_rss_mb_none"] = before["rss_mb"]
        figures[f"{name}_rss_mb_pending"] = after["rss_mb"]
    for key in ("loop_tasks", "coroutines", "threads", "parts_in_memory", "turns_in_memory"):
        figures[f"web_{key}_none"] = none["census"][key]
        figures[f"web_{key}_pending"] = pending["census"][key]
    held = ("loop_tasks", "coroutines", "parts_in_memory", "turns_in_memory")
    figures["met"] = all(none["census"][key] == pending["census"][key] for key in held) and all(
        pending["processes"][name]["cpu_pct"] < 1 for name in pending["processes"]
    )
    figures["target"] = "same census, idle CPU < 1 % with 10,000 pending"
    return figures


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
    start = {name: _cpu_seconds(process) for name, process in processes.items()}
    await asyncio.sleep(idle)  # the idle window being measured, not a wait for a condition
    return {
        "census": census,
        "processes": {
            name: {
                "cpu_pct": 100 * (_cpu_seconds(process) - start[name]) / idle,
                "rss_mb": process.memory_info().rss / 2**20,
            }
            for name, process in processes.items()
        },
    }


def _cpu_seconds(process) -> float:
    times = process.cpu_times()
    return times.user + times.system


async def _ask(person: Person, conversations: int, per_conversation: int) -> None:
    ids = [await person.start_conversation() for _ in range(conversations)]
    work = asyncio.Queue()
    for number in range(per_conversation):
        for conversation in ids:
            work.put_nowait((conversation, number))

    async def client() -> None:
        while not work.empty():
            conversation, number = work.get_nowait()
            await person.post(f"/c/{conversation}/send", {"text": f"{conversation}-{number}"})

    await asyncio.gather(*(client() for _ in range(CONCURRENCY)))


def _wait_until_all_wait(count: int) -> None:
    from elicitation.models import Part
    from playground.models import Turn

    unfinished = [Turn.Status.QUEUED, Turn.Status.RUNNING]
    wait_until(
        lambda: Part.objects.filter(state=Part.State.PENDING).count() >= count
        and not Turn.objects.filter(status__in=unfinished).exists(),
        3600,
        f"the {count} questions were not all asked",
    )


def run(stack, quick: bool, idle: float, **options) -> dict:
    size = (100, 10) if quick else (1000, 10)
    return asyncio.run(measure(stack, *size, idle=idle))


if __name__ == "__main__":
    bench_main("waiting_cost", run)

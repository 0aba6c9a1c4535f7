"""worker_concurrency: 100 conversations whose agent awaits a 1 s step, run by one runner.

Embedded: the server's own runner (EMBEDDED_CONCURRENCY=20). Scale-out: one `worker`
with --concurrency 20. The floor is 1 s x 100 / 20 = 5 s; the target is within 2x of it.
"""

import asyncio
import time

from bench.client import Person
from bench.runner import bench_main
from bench.stack import wait_until

CONCURRENCY = 20
STEP_SECONDS = 1.0


async def measure(stack, conversations: int) -> dict:
    async with Person.logged_in(stack) as person:
        ids = [await person.start_conversation("bench-slow") for _ in range(conversations)]
        started = time.perf_counter()
        await asyncio.gather(*(person.post(f"/c/{c}/send", {"text": str(c)}) for c in ids))
        await asyncio.to_thread(_wait_for_done, conversations)
        wall = time.perf_counter() - started
    floor = STEP_SECONDS * conversations / CONCURRENCY
    return {
        "conversations": conversations,
        "concurrency": CONCURRENCY,
        "wall_s": wall,
        "floor_s": floor,
        "ratio": wall / floor,
        "target": "wall time ≤ 2x the floor",
        "met": wall <= 2 * floor,
    }


def _wait_for_done(count: int) -> None:
    from playground.runs.models import Turn

    done = Turn.objects.filter(conversation__agent__slug="bench-slow", status=Turn.Status.DONE)
    wait_until(lambda: done.count() >= count, 300, f"{count} turns did not all finish")


def run(stack, *, quick: bool, idle: float) -> dict:
    return asyncio.run(measure(stack, 40 if quick else 100))


if __name__ == "__main__":
    bench_main("worker_concurrency", run, workers=1, concurrency=CONCURRENCY)

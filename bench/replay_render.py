"""replay_render: the conversation page with 10 and with 500 settled questions.

Both conversations are filled through the running servers (the agent asks, the answer is
posted, the agent replies). Then: the number of database queries each page costs (Django's
test client against the same database and code; target: equal, no query per part), and the
page's time over HTTP from the real server, median of `REPEATS`, reported per part.
"""

import asyncio
import statistics
import time

from bench.client import Person
from bench.runner import bench_main
from bench.stack import wait_until

REPEATS = 20
CONCURRENCY = 10


async def measure(stack, small: int, large: int) -> dict:
    async with Person.logged_in(stack) as person:
        conversations = {}
        for size in (small, large):
            conversations[size] = await person.start_conversation()
            await _fill(person, conversations[size], size)
        queries = {
            size: await asyncio.to_thread(_count_queries, c) for size, c in conversations.items()
        }
        timings: dict[int, list[float]] = {small: [], large: []}
        for _ in range(REPEATS):  # alternating, so both see the same machine
            for size, conversation in conversations.items():
                started = time.perf_counter()
                page = await person.client.get(f"/c/{conversation}/")
                timings[size].append(time.perf_counter() - started)
                assert page.status_code == 200 and page.text.count("part--submitted") >= size
    median = {size: statistics.median(values) * 1000 for size, values in timings.items()}
    return {
        "parts": f"{small} vs {large}",
        "queries_small": queries[small],
        "queries_large": queries[large],
        "page_ms_small": median[small],
        "page_ms_large": median[large],
        "ms_per_part": (median[large] - median[small]) / (large - small),
        "target": "queries equal",
        "met": queries[small] == queries[large],
    }


async def _fill(person: Person, conversation: int, count: int) -> None:
    """Ask `count` questions in the conversation and answer each one."""
    for number in range(count):  # one at a time, as one person in one conversation
        await person.post(f"/c/{conversation}/send", {"text": f"{conversation}-{number}"})
    part_ids = iter(await asyncio.to_thread(_wait_for_pending, conversation, count))

    async def answer() -> None:
        for part_id in part_ids:
            data = {"action": "accept", "answer.environment": "staging", "answer.version": "v1"}
            await person.post(f"/parts/{part_id}/settle", data)

    await asyncio.gather(*(answer() for _ in range(CONCURRENCY)))
    await asyncio.to_thread(_wait_for_done, conversation, count)


def _wait_for_pending(conversation: int, count: int) -> list[int]:
    from elicitation.models import Part

    pending = Part.objects.filter(conversation_id=conversation, state=Part.State.PENDING)
    wait_until(lambda: pending.count() >= count, 600, f"{count} questions were not all asked")
    return list(pending.values_list("pk", flat=True))


def _wait_for_done(conversation: int, count: int) -> None:
    from playground.runs.models import Turn

    done = Turn.objects.filter(conversation_id=conversation, status=Turn.Status.DONE)
    wait_until(lambda: done.count() >= count, 600, f"{count} turns did not all finish")


def _count_queries(conversation: int) -> int:
    from django.contrib.auth.models import User
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from bench.stack import USERNAME

    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(User.objects.get(username=USERNAME))
    client.get(f"/c/{conversation}/")  # warm: the session and the user are loaded once
    with CaptureQueriesContext(connection) as captured:
        assert client.get(f"/c/{conversation}/").status_code == 200
    return len(captured.captured_queries)


def run(stack, quick: bool, **options) -> dict:
    return asyncio.run(measure(stack, small=10, large=100 if quick else 500))


if __name__ == "__main__":
    bench_main("replay_render", run)

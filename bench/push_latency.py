"""push_latency: from `ctx.elicit` creating a part to its form arriving at an open websocket.

Each question is one turn of the bench agent (POST a message, the run asks). Its latency is
the websocket arrival time minus the part's `created_at` (stamped in the INSERT). The
baseline is the durable floor of a question, one turn before each question in the same
conversation: the run INSERTs the question's row (the same fields, so the same size) with the
ORM, renders it with the same template and pushes it through the same layer from the same
process (a worker's push crosses Redis like its questions), then ends and pushes its status
line, as a question's turn parks and pushes it; timed the same way, from the row's
`created_at` to the arrival. What is left between the two is what `ctx.elicit` adds to the
least a durable question must do. Target: elicit median / floor median <= 1.3.
"""

import asyncio
import re

from bench.client import PENDING_PART, Person, summary
from bench.runner import bench_main

PER_CONVERSATION = 50
FLOOR = re.compile(r'data-bench-floor="(\d+)"')


async def measure(stack, questions: int) -> dict:
    from elicitation.models import Part

    arrivals: dict[int, float] = {}
    floor: dict[int, float] = {}
    sizes: list[int] = []
    async with Person.logged_in(stack) as person:
        for start in range(0, questions, PER_CONVERSATION):
            conversation = await person.start_conversation()
            async with person.tab(conversation) as tab:
                for asked in range(min(questions - start, PER_CONVERSATION)):
                    label = f"q{start + asked}"
                    await person.post(f"/c/{conversation}/send", {"text": f"floor f{label}"})
                    arrived, fragment = await tab.wait_for(FLOOR)
                    floor[int(FLOOR.search(fragment).group(1))] = arrived
                    # Each floor's row stays pending, a question as the status line counts them.
                    await tab.wait_for(f'id="status"[^>]*data-state="idle-{2 * asked + 1}"')

                    await person.post(f"/c/{conversation}/send", {"text": label})
                    arrived, fragment = await tab.wait_for(PENDING_PART)
                    arrivals[int(PENDING_PART.search(fragment).group(1))] = arrived
                    sizes.append(len(fragment))
                    await tab.wait_for(f'id="status"[^>]*data-state="idle-{2 * asked + 2}"')
    rows = Part.objects.filter(pk__in=[*arrivals, *floor]).values_list("pk", "created_at")
    created = {pk: stamp.timestamp() async for pk, stamp in rows}
    elicit = [arrivals[pk] - created[pk] for pk in arrivals]
    baseline = [floor[pk] - created[pk] for pk in floor]
    ms = {
        name: {k: v * 1000 for k, v in summary(values).items()}
        for name, values in (("elicit", elicit), ("baseline", baseline))
    }
    return {
        "questions": len(elicit),
        "fragment_bytes": round(sum(sizes) / len(sizes)),
        "elicit_median_ms": ms["elicit"]["median"],
        "elicit_p99_ms": ms["elicit"]["p99"],
        "baseline_median_ms": ms["baseline"]["median"],
        "baseline_p99_ms": ms["baseline"]["p99"],
        "ratio_median": ms["elicit"]["median"] / ms["baseline"]["median"],
        "ratio_p99": ms["elicit"]["p99"] / ms["baseline"]["p99"],
        "target": "ratio_median <= 1.3 (against the durable floor)",
        "met": ms["elicit"]["median"] / ms["baseline"]["median"] <= 1.3,
    }


async def question_floor_seconds(person: Person, count: int) -> list[float]:
    """Return the durable floor of a question `count` times, alone in a conversation of its
    own (push_latency's baseline, for the benchmarks that read against it)."""
    from elicitation.models import Part

    arrivals: dict[int, float] = {}
    conversation = await person.start_conversation()
    async with person.tab(conversation) as tab:
        for asked in range(count):
            await person.post(f"/c/{conversation}/send", {"text": f"floor f{asked}"})
            arrived, fragment = await tab.wait_for(FLOOR)
            arrivals[int(FLOOR.search(fragment).group(1))] = arrived
            await tab.wait_for(f'id="status"[^>]*data-state="idle-{asked + 1}"')
    rows = Part.objects.filter(pk__in=arrivals).values_list("pk", "created_at")
    return [arrivals[pk] - created.timestamp() async for pk, created in rows]


def run(stack, quick: bool, **options) -> dict:
    return asyncio.run(measure(stack, questions=200 if quick else 1000))


if __name__ == "__main__":
    bench_main("push_latency", run)

"""push_latency: from `ctx.elicit` creating a part to its form arriving at an open websocket.

Each question is one turn of the bench agent (POST a message, the run asks). Its latency is
the websocket arrival time minus the part's `created_at` (stamped in the INSERT). The
baseline, one turn before each question in the same conversation: the run pushes a bare
fragment of the question's size through the same layer, from the same process (a worker's
push crosses Redis like its questions), then ends and pushes its status line, as a question's
turn parks and pushes it; from the send to the arrival. What is left between the two is what
`ctx.elicit` adds to a push: saving the question and rendering its form.
Target: elicit median / baseline median <= 1.5.
"""

import asyncio
import re

from bench.client import PENDING_PART, Person, summary
from bench.runner import bench_main

PER_CONVERSATION = 50
BARE = re.compile(r'data-bench-sent="([\d.]+)"')


async def measure(stack, questions: int) -> dict:
    from elicitation.models import Part

    arrivals: dict[int, float] = {}
    baseline: list[float] = []
    sizes: list[int] = []
    size = 2800  # about a question's fragment; the first question's size is used after it
    async with Person.logged_in(stack) as person:
        for start in range(0, questions, PER_CONVERSATION):
            conversation = await person.start_conversation()
            async with person.tab(conversation) as tab:
                for asked in range(min(questions - start, PER_CONVERSATION)):
                    await person.post(f"/c/{conversation}/send", {"text": f"bare {size}"})
                    arrived, fragment = await tab.wait_for(BARE)
                    baseline.append(arrived - float(BARE.search(fragment).group(1)))
                    await tab.wait_for(f'id="status"[^>]*data-state="idle-{asked}"')

                    await person.post(f"/c/{conversation}/send", {"text": f"q{start + asked}"})
                    arrived, fragment = await tab.wait_for(PENDING_PART)
                    arrivals[int(PENDING_PART.search(fragment).group(1))] = arrived
                    size = len(fragment)
                    sizes.append(size)
                    await tab.wait_for(f'id="status"[^>]*data-state="idle-{asked + 1}"')
    rows = Part.objects.filter(pk__in=arrivals).values_list("pk", "created_at")
    created = {pk: stamp.timestamp() async for pk, stamp in rows}
    elicit = [arrivals[pk] - created[pk] for pk in arrivals]
    ms = {name: {k: v * 1000 for k, v in summary(values).items()} for name, values in
          (("elicit", elicit), ("baseline", baseline))}  # fmt: skip
    return {
        "questions": len(elicit),
        "fragment_bytes": round(sum(sizes) / len(sizes)),
        "elicit_median_ms": ms["elicit"]["median"],
        "elicit_p99_ms": ms["elicit"]["p99"],
        "baseline_median_ms": ms["baseline"]["median"],
        "baseline_p99_ms": ms["baseline"]["p99"],
        "ratio_median": ms["elicit"]["median"] / ms["baseline"]["median"],
        "ratio_p99": ms["elicit"]["p99"] / ms["baseline"]["p99"],
        "target": "ratio_median <= 1.5",
        "met": ms["elicit"]["median"] / ms["baseline"]["median"] <= 1.5,
    }


def run(stack, quick: bool, **options) -> dict:
    return asyncio.run(measure(stack, questions=200 if quick else 1000))


if __name__ == "__main__":
    bench_main("push_latency", run)

"""push_latency: from `ctx.elicit` creating a part to its form arriving at an open websocket.

Each question is one turn of the bench agent (POST a message, the run asks). Its latency is
the websocket arrival time minus the part's `created_at`. The baseline, measured right after
each question so both see the same machine, but once its run has stopped to wait (so it does
not also pay for the run's last writes): a bare `group_send` of a fragment of the same size
through the same channel layer (`/ws/bench/echo/`), from the send to the arrival.
Target: elicit median / baseline median <= 1.5.
"""

import asyncio

from bench.client import PENDING_PART, Person, echo_seconds, open_echo, summary
from bench.runner import bench_main

PER_CONVERSATION = 50


async def measure(stack, questions: int) -> dict:
    from elicitation.models import Part

    arrivals: dict[int, float] = {}
    baseline: list[float] = []
    sizes: list[int] = []
    async with Person.logged_in(stack) as person:
        echo = await open_echo(person)
        for start in range(0, questions, PER_CONVERSATION):
            conversation = await person.start_conversation()
            async with person.tab(conversation) as tab:
                for number in range(start, min(questions, start + PER_CONVERSATION)):
                    await person.post(f"/c/{conversation}/send", {"text": f"q{number}"})
                    arrived, fragment = await tab.wait_for(PENDING_PART)
                    arrivals[int(PENDING_PART.search(fragment).group(1))] = arrived
                    sizes.append(len(fragment))
                    # The baseline on a quiet server: once the run has stopped to wait.
                    await tab.wait_for(f'id="status"[^>]*data-state="idle-{number - start + 1}"')
                    baseline.append(await echo_seconds(echo, len(fragment)))
        await echo.close()
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

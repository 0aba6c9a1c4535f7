"""agui_roundtrip: from an AG-UI agent emitting its `request_input` tool call to the form at an
open websocket, and from the answer's POST to the agent receiving the tool result (issue 33's
two spans).

The agent is the Pydantic AI test agent served with its own AG-UI adapter
(`tests/support/agui_test_server.py`, scenario `/ask`): its first run calls `request_input`, its
second
(with the tool result) replies. It writes down when its model emits the tool call and when each
run's request arrives (its log), on the same clock as the bench. Also reported, not judged: the
whole message POST to the form, and the answer POST to the reply at the tab.

Baselines, in the same run: the same agent's bare SSE round trips, the two runs POSTed and read
to RUN_FINISHED by our client (`playground.agui.client.run_once`, httpx) with nothing else around
them; one bare push through the channel layer (`/ws/bench/echo/`); and the answer floor
(bench/answer_floor.py), one answer at a time, from its POST to its waiter having it.
Targets: tool call to form median <= 1.5 x (its bare run) + one push; answer to the agent's
request median <= 1.5 x (its bare run) + the answer floor's median (issue 50).
"""

import asyncio
import json
import os
import re
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench.client import (
    Person,
    answer_floor_seconds,
    echo_seconds,
    floor_waiters,
    open_echo,
    summary,
)
from bench.runner import bench_main
from bench.servers import serving
from bench.stack import BASE_DIR

AGENT = BASE_DIR / "tests" / "support" / "agui_test_server.py"
FORM = re.compile(r'<article id="part-(\d+)"[^>]*data-state="pending"[\s\S]*Which colour\?')
REPLY = re.compile(r"You picked green\.")


async def through_the_chat(person: Person, questions: int, log: Path) -> dict[str, list]:
    """Return, per question (a conversation each), in seconds: the agent's tool call to the
    form (`emit_to_form`), the answer to the agent's next request (`answer_to_agent`), and the
    whole message to the form and answer to the reply at the tab."""
    spans: dict[str, list] = {
        "emit_to_form": [],
        "answer_to_agent": [],
        "message_to_form": [],
        "answer_to_reply": [],
    }
    for _ in range(questions):
        conversation = await person.start_conversation("agui-painter")
        async with person.tab(conversation) as tab:
            sent = time.time()
            await person.post(f"/c/{conversation}/send", {"text": "paint it"})
            arrived, fragment = await tab.wait_for(FORM)
            spans["message_to_form"].append(arrived - sent)
            [emitted] = [line["at"] for line in _log(log, after=sent) if "emitted" in line]
            spans["emit_to_form"].append(arrived - emitted)
            part_id = FORM.search(fragment).group(1)
            answered = time.time()
            await person.post(
                f"/parts/{part_id}/settle", {"action": "accept", "answer.colour": "green"}
            )
            arrived, _ = await tab.wait_for(REPLY)
            spans["answer_to_reply"].append(arrived - answered)
            [request] = [line["at"] for line in _log(log, after=answered) if "body" in line]
            spans["answer_to_agent"].append(request - answered)
    return spans


def _log(log: Path, *, after: float) -> list[dict]:
    """Return what the agent wrote down after `after` (its requests and tool calls)."""
    lines = [json.loads(line) for line in log.read_text().splitlines() if line]
    return [line for line in lines if line["at"] > after]


async def bare_runs(questions: int) -> tuple[list, list]:
    """Return the agent's two runs, POSTed and read to the end by our client alone."""
    from playground.agui import agents_file, protocol
    from playground.agui.client import run_once

    agent = agents_file.load()["painter"]
    first, second = [], []
    for index in range(questions):
        messages = [protocol.user_message(f"bench-{index}", "paint it")]
        body = protocol.run_input(thread_id=f"bench-{index}", run_id="0", messages=messages)
        started = time.perf_counter()
        run = await run_once(agent, body)
        first.append(time.perf_counter() - started)
        [call] = run["calls"]
        result = {"action": "accept", "content": {"colour": "green"}}
        messages = [*messages, *run["messages"], protocol.tool_message(call["id"], result)]
        body = protocol.run_input(thread_id=f"bench-{index}", run_id="1", messages=messages)
        started = time.perf_counter()
        run = await run_once(agent, body)
        second.append(time.perf_counter() - started)
        assert run["text"] == "You picked green.", run
    return first, second


async def measure(stack, questions: int, log: Path) -> dict:
    figures: dict = {"questions": questions}
    async with Person.logged_in(stack) as person, floor_waiters(stack) as woken:
        echo = await open_echo(person)
        pushes = [await echo_seconds(echo, 2800) for _ in range(questions)]
        await echo.close()
        push_ms = summary(pushes)["median"] * 1000
        floor = await answer_floor_seconds(person, woken, max(questions, 20))
        await bare_runs(1)  # warm up the agent
        spans = await through_the_chat(person, questions, log)
        first, second = await bare_runs(questions)
    figures["push_median_ms"] = push_ms
    figures["answer_floor_median_ms"] = floor_ms = summary(floor)["median"] * 1000
    allowance = {"emit_to_form": push_ms, "answer_to_agent": floor_ms}
    for name, values in spans.items():
        figures[f"{name}_median_ms"] = summary(values)["median"] * 1000
        figures[f"{name}_p99_ms"] = summary(values)["p99"] * 1000
    met = True
    for span, bare in (("emit_to_form", first), ("answer_to_agent", second)):
        figures[f"{span}_bare_run_median_ms"] = summary(bare)["median"] * 1000
        allowed = 1.5 * figures[f"{span}_bare_run_median_ms"] + allowance[span]
        figures[f"{span}_ratio"] = figures[f"{span}_median_ms"] / allowed
        met = met and figures[f"{span}_ratio"] <= 1
    target = "to form <= 1.5 x bare run + push; to agent <= 1.5 x bare run + answer floor"
    return figures | {"target": target, "met": met}


def run(stack, quick: bool, **options) -> dict:
    log = Path(os.environ["AGUI_AGENTS_FILE"]).parent / "runs.log"
    return asyncio.run(measure(stack, 5 if quick else 50, log))


@contextmanager
def agents_file() -> Iterator[Path]:
    """Start the test agent; yield the agents file naming it (the stack's processes read it)."""
    workdir = Path(tempfile.mkdtemp(prefix="bench-agui-"))
    log = workdir / "runs.log"
    with serving(lambda port: [str(AGENT), str(port), str(log)], "the AG-UI test agent") as port:
        path = workdir / "agents.toml"
        path.write_text(f'[agents.painter]\nurl = "http://127.0.0.1:{port}/ask"\n')
        yield path


if __name__ == "__main__":
    with agents_file() as agents:
        os.environ["AGUI_AGENTS_FILE"] = str(agents)
        bench_main("agui_roundtrip", run)

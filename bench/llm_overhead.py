"""llm_overhead: what the playground adds to each request of an LLM agent's model.

The model is a local server speaking the OpenAI-compatible protocol (tests/support/fake_openai.py)
that
answers each request in a fixed time (`MODEL_SECONDS`), streamed, over kept-alive HTTP/1.1
connections, in a process of its own, as a real model server is (in the bench's process, the
bench reading the pushes delayed the requests' arrival by milliseconds). Each
measured turn is the common one: the person sends a message, the model asks with
`request_input`, the person answers, the model replies with text. On the server's side a turn
is two model requests; around them, the playground's own work:

- send → first request: the message's POST to the model receiving the request (saving the
  turn, starting the run, building the agent, reading the history);
- request → form: the model's last byte (a `request_input` call) to the form at the tab;
- answer → request: the answer's POST to the model receiving the next request (settle,
  resume, replay the turn from its records);
- request → reply: the model's last byte (text) to the reply at the tab.

Overhead per request = (request → form + answer → request + request → reply) / 2, per turn:
everything but the model's own time and the first request's start-up. The baseline, in the
same run and conversation-for-conversation: a message's save-and-push (a turn of the bench
agent that only pushes a bare fragment: POST to arrival at the tab). Targets (issue 50):
overhead per request median <= 1.5x that, and send → first request median <= 2x that. The
first turn of each run (imports, connections) is not counted.
"""

import asyncio
import multiprocessing
import os
import re
import statistics
import threading
import time

from bench.client import PENDING_PART, Person
from bench.runner import bench_main
from tests.support.fake_openai import MODEL, FakeOpenAI, text, tool_calls

MODEL_SECONDS = 0.025  # what a small local model took to answer in the report
PER_CONVERSATION = 10
COLOUR = {"type": "object", "properties": {"colour": {"type": "string", "enum": ["red", "green"]}}}
ASKS = tool_calls(("request_input", {"message": "Which colour?", "requestedSchema": COLOUR}))
REPLY = "Painted it."
BARE = re.compile(r'data-bench-sent="([\d.]+)"')
FINAL = re.compile(r'data-state="final">[\s\S]*' + re.escape(REPLY))


class ModelProcess:
    """The model server, run in a child process; `timings` is its list, shared."""

    def __init__(self):
        context = multiprocessing.get_context("spawn")
        self.manager = context.Manager()
        self.timings = self.manager.list()
        addresses = context.Queue()
        self.process = context.Process(
            target=_serve_model, args=(self.timings, addresses), daemon=True
        )
        self.process.start()
        self.base_url = addresses.get(timeout=60)

    def close(self) -> None:
        self.process.terminate()
        self.manager.shutdown()


def _serve_model(timings, addresses) -> None:
    fake = FakeOpenAI(ASKS, text(REPLY), delay=MODEL_SECONDS, repeat=True, keep_alive=True)
    fake.timings = timings
    addresses.put(fake.base_url)
    threading.Event().wait()  # until the bench ends this process


fake: ModelProcess | None = None  # started in __main__: a spawned child imports this module


async def measure(stack, turns: int) -> dict:
    figures: dict[str, list[float]] = {
        "send_to_request": [],
        "request_to_form": [],
        "answer_to_request": [],
        "request_to_reply": [],
        "baseline_save_and_push": [],
    }
    async with Person.logged_in(stack) as person:
        bench_conversation = await person.start_conversation()
        async with person.tab(bench_conversation) as bench_tab:
            for start in range(0, turns + 1, PER_CONVERSATION):
                conversation = await _new_llm_conversation(person, start)
                async with person.tab(conversation) as tab:
                    for number in range(start, min(turns + 1, start + PER_CONVERSATION)):
                        baseline = await _save_and_push(person, bench_conversation, bench_tab)
                        turn = await _turn(person, conversation, tab)
                        if number == 0:
                            continue  # the warm-up turn: imports, the client's connections
                        figures["baseline_save_and_push"].append(baseline)
                        for name, value in turn.items():
                            figures[name].append(value)
    ms = {name: statistics.median(values) * 1000 for name, values in figures.items()}
    per_request = [
        (form + resume + reply) / 2
        for form, resume, reply in zip(
            figures["request_to_form"],
            figures["answer_to_request"],
            figures["request_to_reply"],
            strict=True,
        )
    ]
    overhead_ms = statistics.median(per_request) * 1000
    start_ratio = ms["send_to_request"] / ms["baseline_save_and_push"]
    overhead_ratio = overhead_ms / ms["baseline_save_and_push"]
    return {
        "turns": len(per_request),
        "model_ms": MODEL_SECONDS * 1000,
        "overhead_per_request_median_ms": overhead_ms,
        **{f"{name}_median_ms": value for name, value in ms.items()},
        "overhead_ratio": overhead_ratio,
        "start_ratio": start_ratio,
        "target": "overhead per request <= 1.5x save-and-push; send → first request <= 2x",
        "met": overhead_ratio <= 1.5 and start_ratio <= 2,
    }


async def _new_llm_conversation(person: Person, number: int) -> int:
    data = {"name": f"Painter {number}", "model": f"default/{MODEL}", "instructions": "Paint."}
    response = await person.post("/llm-agents/new", data)
    return int(re.search(r"/c/(\d+)/", response.headers["location"]).group(1))


async def _save_and_push(person: Person, conversation: int, tab) -> float:
    tab.received.clear()  # (the last turn's pushes)
    sent = time.time()
    await person.post(f"/c/{conversation}/send", {"text": "bare 200"})
    arrived, _ = await tab.wait_for(BARE)
    await tab.wait_for(r'id="status"[^>]*data-state="idle-0"')
    return arrived - sent


async def _turn(person: Person, conversation: int, tab) -> dict[str, float]:
    asked = len(fake.timings)
    tab.received.clear()  # (the last turn's pushes)
    sent = time.time()
    await person.post(f"/c/{conversation}/send", {"text": "paint the fence"})
    form_at, fragment = await tab.wait_for(PENDING_PART)
    part = int(PENDING_PART.search(fragment).group(1))
    first_received, first_answered = fake.timings[asked]

    answered = time.time()
    await person.post(f"/parts/{part}/settle", {"action": "accept", "answer.colour": "green"})
    reply_at, _ = await tab.wait_for(FINAL)
    await tab.wait_for(r'id="status"[^>]*data-state="idle-0"')
    second_received, second_answered = fake.timings[asked + 1]
    return {
        "send_to_request": first_received - sent,
        "request_to_form": form_at - first_answered,
        "answer_to_request": second_received - answered,
        "request_to_reply": reply_at - second_answered,
    }


def run(stack, quick: bool, **options) -> dict:
    return asyncio.run(measure(stack, turns=20 if quick else 100))


if __name__ == "__main__":
    fake = ModelProcess()
    # The stack's processes read the model's address from the environment.
    os.environ |= {"LLM_BASE_URL": fake.base_url, "LLM_MODELS": MODEL}
    try:
        bench_main("llm_overhead", run)
    finally:
        fake.close()

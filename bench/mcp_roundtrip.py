"""mcp_roundtrip: from a tool call to the server's form at an open websocket, and from the
answer to the tool's result, against the SDK-built test server over stdio and over Streamable
HTTP, warm (the conversation's session open) and cold (none open).

The tool is `legacy_profile`: it asks with `ctx.elicit()` on its session (a legacy one), so
the form reaches the tab while the call is in flight. Measured, per call: from the bridge's
first message for the call (warm: its `tools/call`; cold: opening the session, the server's
start-up) to the form's arrival, read from the conversation's Wire log (the bridge notes each
message as it goes, on this machine's clock); and the POST of the answer to the result's
arrival. Also reported, not judged: the POST of `legacy_profile` typed in the chat to the form
(the message's save and the turn's start besides the call). Cold calls go to a second entry of
the same server with `idle_minutes` of 30 ms, so its session has closed before every message.

Baseline, in the same run: the same call through the SDK's client
(`playground.mcp_bridge.connection`,
which is the SDK's `Client` with our capabilities), answering the question at once, on an open
session (warm) and opening it first (cold: the server's start-up and handshake); plus the
durable floor of a question (push_latency's baseline: its row INSERTed, its form rendered and
pushed through the same layer, from a run, timed from the row to the tab).
Target (issue 50): warm call-to-form median <= 1.5 x (SDK warm round trip) + that floor's
median; cold call-to-form median <= SDK cold round trip + that floor's median.
"""

import asyncio
import os
import re
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from bench.client import Person, summary
from bench.push_latency import question_floor_seconds
from bench.runner import bench_main
from bench.servers import serving
from bench.stack import BASE_DIR

TEST_SERVER = BASE_DIR / "tests" / "support" / "mcp_test_server.py"
ANSWER = {
    "name": "Ada",
    "age": "36",
    "height": "1.7",
    "subscribe": "false",
    "plan": "free",
    "email": "ada@example.com",
    "birthday": "1815-12-10",
}
FORM = re.compile(r'<article id="part-(\d+)"[^>]*data-state="pending"[\s\S]*Tell me about yourself')
# The agent's message with the result (the step's outcome, pushed just before, says it too).
RESULT = re.compile(r'<div id="message-\d+"[^>]*>[\s\S]*Profile: ')


def servers_file(http_url: str) -> Path:
    """Write the servers: stdio and http, each warm and cold (its session closes at once)."""
    entries = []
    for name, idle in (("stdio", 5), ("stdio-cold", 0.0005)):
        entries.append(
            f'[servers.{name}]\ntransport = "stdio"\ncommand = {str(sys.executable)!r}\n'
            f'args = [{str(TEST_SERVER)!r}]\nprotocol = "legacy"\nidle_minutes = {idle}\n'
        )
    for name, idle in (("http", 5), ("http-cold", 0.0005)):
        entries.append(
            f'[servers.{name}]\ntransport = "http"\nurl = "{http_url}"\n'
            f'protocol = "legacy"\nidle_minutes = {idle}\n'
        )
    path = Path(tempfile.mkdtemp(prefix="bench-mcp-")) / "servers.toml"
    path.write_text("\n".join(entries))
    return path


async def through_the_chat(person: Person, slug: str, calls: int) -> dict[str, list]:
    """Return, in seconds for `calls` calls in one conversation: the call to its form
    (`form`), the typed message to the form (`submit`), the answer to the result (`result`)."""
    conversation = await person.start_conversation(f"mcp-{slug}")
    spans: dict[str, list] = {"form": [], "submit": [], "result": []}
    async with person.tab(conversation) as tab:
        await tab.wait_for("Which tool of")  # the opening turn listed the tools
        for _ in range(calls):
            if slug.endswith("-cold"):
                await asyncio.sleep(0.1)  # past its idle limit: the session has closed
            sent = time.time()
            await person.post(f"/c/{conversation}/send", {"text": "legacy_profile"})
            arrived, fragment = await tab.wait_for(FORM)
            spans["submit"].append(arrived - sent)
            spans["form"].append(arrived - await _first_on_the_wire(conversation, sent))
            part_id = FORM.search(fragment).group(1)
            answer = {"action": "accept", **{f"answer.{k}": v for k, v in ANSWER.items()}}
            sent = time.time()
            await person.post(f"/parts/{part_id}/settle", answer)
            arrived, _ = await tab.wait_for(RESULT)
            spans["result"].append(arrived - sent)
    return spans


async def _first_on_the_wire(conversation: int, after: float) -> float:
    """Return when the bridge's first message after `after` travelled (its Wire log is
    written just after, off the call's way: wait for it a little)."""
    from playground.runs.models import WireMessage

    since = datetime.fromtimestamp(after, UTC)
    messages = WireMessage.objects.filter(conversation_id=conversation, at__gte=since)
    for _ in range(100):
        first = await messages.order_by("at").afirst()
        if first is not None:
            return first.at.timestamp()
        await asyncio.sleep(0.05)
    raise AssertionError(f"nothing on the wire of conversation {conversation} within 5 s")


async def through_the_sdk(server, calls: int, *, cold: bool) -> list[float]:
    """Return the SDK client's round trips of the same call, the question answered at once."""
    from mcp_types import ElicitResult

    from playground.mcp_bridge.connection import connect

    async def answer(context, params):
        return ElicitResult(
            action="accept", content={**ANSWER, "age": 36, "height": 1.7, "subscribe": False}
        )

    async def call(client) -> None:
        result = await client.call_tool("legacy_profile", {})
        assert "Profile: " in result.content[0].text, result

    seconds = []
    if cold:
        for _ in range(calls):
            started = time.perf_counter()
            async with connect(server, elicitation_callback=answer) as client:
                await call(client)
                seconds.append(time.perf_counter() - started)
        return seconds
    async with connect(server, elicitation_callback=answer) as client:
        await call(client)  # warm up
        for _ in range(calls):
            started = time.perf_counter()
            await call(client)
            seconds.append(time.perf_counter() - started)
    return seconds


async def measure(stack, calls: int) -> dict:
    from playground.mcp_bridge import servers

    configured = servers.load()
    figures: dict = {"calls": calls}
    async with Person.logged_in(stack) as person:
        floor = await question_floor_seconds(person, max(calls, 20))
        figures["question_floor_median_ms"] = floor_ms = summary(floor)["median"] * 1000
        met = True
        for transport in ("stdio", "http"):
            for warmth in ("warm", "cold"):
                slug = transport if warmth == "warm" else f"{transport}-cold"
                spans = await through_the_chat(person, slug, calls)
                sdk = await through_the_sdk(configured[slug], calls, cold=warmth == "cold")
                key = f"{transport}_{warmth}"
                figures[f"{key}_form_median_ms"] = summary(spans["form"])["median"] * 1000
                figures[f"{key}_form_p99_ms"] = summary(spans["form"])["p99"] * 1000
                figures[f"{key}_submit_median_ms"] = summary(spans["submit"])["median"] * 1000
                figures[f"{key}_result_median_ms"] = summary(spans["result"])["median"] * 1000
                figures[f"{key}_sdk_median_ms"] = summary(sdk)["median"] * 1000
                sdk_ms = figures[f"{key}_sdk_median_ms"]
                allowed = (1.5 if warmth == "warm" else 1) * sdk_ms + floor_ms
                figures[f"{key}_ratio"] = figures[f"{key}_form_median_ms"] / allowed
                met = met and figures[f"{key}_ratio"] <= 1
    return figures | {
        "target": "warm form <= 1.5 x SDK round trip + question floor; cold form <= SDK cold "
        "round trip + question floor",
        "met": met,
    }


def run(stack, quick: bool, **options) -> dict:
    return asyncio.run(measure(stack, calls=5 if quick else 50))


@contextmanager
def http_server() -> Iterator[str]:
    """Start the test server on Streamable HTTP (before the stack: its URL is in the file)."""
    with serving(lambda port: [str(TEST_SERVER), "http", str(port)], "the MCP test server") as port:
        yield f"http://127.0.0.1:{port}/mcp"


if __name__ == "__main__":
    with http_server() as url:
        os.environ["MCP_SERVERS_FILE"] = str(servers_file(url))  # the stack's processes read it
        bench_main("mcp_roundtrip", run)

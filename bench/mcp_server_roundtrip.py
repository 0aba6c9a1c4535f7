"""mcp_server_roundtrip: the playground as an MCP server (`/mcp`), from an MCP client's
`request_input` call to the form at an open websocket, and from the answer's POST to the call's
result at the client.

The client is the official SDK's (`mcp.Client` over Streamable HTTP, with a person's API token),
on an open connection; each call asks in the same conversation, whose tab is open.

Baseline, in the same run: the SDK's own in-memory round trip (`Client(MCPServer)`, a tool that
answers at once), and one bare push through the channel layer (`/ws/bench/echo/`).
Target: call-to-form median <= 1.5 x (SDK round trip + one push) + one bare HTTP call to /mcp
(`list_waiting`, which reads the database once): the HTTP and database hops the in-memory trip
does not make.
"""

import asyncio
import re
import time

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver import MCPServer

from bench.client import Person, echo_seconds, open_echo, summary
from bench.runner import bench_main
from bench.stack import USERNAME, wait_until

SCHEMA = {"type": "object", "properties": {"env": {"type": "string", "enum": ["a", "b"]}}}
PENDING = r'<article id="part-(\d+)"[^>]*data-state="pending"[\s\S]*Bench question {n}\?'


def _key() -> str:
    from django.contrib.auth.models import User

    from playground.api.tokens import create_token

    return create_token(User.objects.get(username=USERNAME), "bench")[1]


async def through_the_server(person: Person, questions: int) -> dict[str, list]:
    key = await asyncio.to_thread(_key)
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60)
    transport = streamable_http_client(person.stack.url + "/mcp", http_client=http)
    spans: dict[str, list] = {"call_to_form": [], "answer_to_result": [], "bare_call": []}
    async with http, Client(transport) as client:
        opened = await client.call_tool("list_waiting", {})  # warm: the connection is open
        assert not opened.is_error
        first = asyncio.create_task(_ask(client, -1, "bench"))
        conversation = await _conversation_of_first(person, first)
        async with person.tab(conversation) as tab:
            for n in range(questions):
                started = time.perf_counter()
                await client.call_tool("list_waiting", {})
                spans["bare_call"].append(time.perf_counter() - started)
                sent = time.time()
                call = asyncio.create_task(_ask(client, n, conversation))
                arrived, fragment = await tab.wait_for(PENDING.format(n=n))
                spans["call_to_form"].append(arrived - sent)
                part_id = re.search(r'id="part-(\d+)"', fragment).group(1)
                answered = time.perf_counter()
                await person.post(
                    f"/parts/{part_id}/settle", {"action": "accept", "answer.env": "a"}
                )
                result = await call
                spans["answer_to_result"].append(time.perf_counter() - answered)
                assert result.structured_content == {"action": "accept", "content": {"env": "a"}}
    return spans


async def _ask(client: Client, n: int, conversation):
    question = {"message": f"Bench question {n}?", "requestedSchema": SCHEMA}
    return await client.call_tool("request_input", {**question, "conversation": conversation})


async def _conversation_of_first(person: Person, call: asyncio.Task) -> int:
    """Answer the first question (it opens the conversation); return the conversation's id."""
    from elicitation.models import Part

    def pending() -> Part | None:
        return Part.objects.filter(
            state=Part.State.PENDING, payload__message="Bench question -1?"
        ).first()

    part = await asyncio.to_thread(wait_until, pending, 30, "the first question was not asked")
    await person.post(f"/parts/{part.pk}/settle", {"action": "accept", "answer.env": "a"})
    result = await call
    return result.meta["conversationId"]


async def in_memory(questions: int) -> list[float]:
    """The SDK's own round trip: a tool that answers at once, on an in-memory connection."""
    server = MCPServer("bench")

    @server.tool()
    async def request_input(message: str, requestedSchema: dict) -> dict:
        return {"action": "accept", "content": {"env": "a"}}

    seconds = []
    async with Client(server) as client:
        await client.call_tool("request_input", {"message": "warm", "requestedSchema": SCHEMA})
        for n in range(questions):
            started = time.perf_counter()
            await client.call_tool("request_input", {"message": f"{n}", "requestedSchema": SCHEMA})
            seconds.append(time.perf_counter() - started)
    return seconds


async def measure(stack, questions: int) -> dict:
    figures: dict = {"questions": questions}
    async with Person.logged_in(stack) as person:
        echo = await open_echo(person)
        pushes = [await echo_seconds(echo, 2800) for _ in range(questions)]
        await echo.close()
        spans = await through_the_server(person, questions)
    sdk = await in_memory(questions)
    figures["push_median_ms"] = summary(pushes)["median"] * 1000
    figures["sdk_median_ms"] = summary(sdk)["median"] * 1000
    for name, values in spans.items():
        figures[f"{name}_median_ms"] = summary(values)["median"] * 1000
        figures[f"{name}_p99_ms"] = summary(values)["p99"] * 1000
    allowed = (
        1.5 * (figures["sdk_median_ms"] + figures["push_median_ms"])
        + figures["bare_call_median_ms"]
    )
    figures["form_ratio"] = figures["call_to_form_median_ms"] / allowed
    target = "call to form <= 1.5 x (SDK round trip + push) + a bare /mcp call"
    return figures | {"target": target, "met": figures["form_ratio"] <= 1}


def run(stack, quick: bool, **options) -> dict:
    return asyncio.run(measure(stack, 5 if quick else 50))


if __name__ == "__main__":
    bench_main("mcp_server_roundtrip", run)

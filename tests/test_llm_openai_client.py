"""The OpenAI client the playground's models use sends what the SDK's own sends: the same JSON
(its messages and tools skip the SDK's walk over them, which returned them unchanged)."""

import asyncio

import pytest
from openai import AsyncOpenAI

from playground.llm_agents.openai_client import ChatClient
from tests.support.fake_openai import MODEL, FakeOpenAI, text

# A conversation as pydantic-ai maps it: text, an image, a tool call and its result.
MESSAGES = [
    {"role": "system", "content": "Paint."},
    {"role": "user", "content": "paint the fence"},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "this one"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
        ],
    },
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "request_input", "arguments": '{"message": "Which?"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": '{"action": "accept"}'},
]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "request_input",
            "description": "Ask the person.",
            "parameters": {"type": "object", "properties": {"message": {"type": "string"}}},
        },
    }
]


async def _send(client_class, base_url: str, **params) -> None:
    async with client_class(base_url=base_url, api_key="not-needed") as client:
        stream = await client.chat.completions.create(
            model=MODEL, messages=MESSAGES, stream=True, **params
        )
        async for _ in stream:
            pass


@pytest.mark.parametrize(
    "params",
    [
        {"tools": TOOLS, "tool_choice": "auto", "stream_options": {"include_usage": True}},
        {"temperature": 0.2},  # no tools
        {"tools": TOOLS, "extra_body": {"top_k": 3}},  # the caller's own extra_body too
    ],
    ids=["tools", "no tools", "extra body"],
)
def test_a_chat_request_reaches_the_server_as_the_sdks_own_client_sends_it(params):
    server = FakeOpenAI(text("Hi."), text("Hi."))
    try:
        asyncio.run(_send(AsyncOpenAI, server.base_url, **params))
        asyncio.run(_send(ChatClient, server.base_url, **params))
    finally:
        server.close()
    sdks, ours = server.requests
    assert ours == sdks and ours["messages"] == MESSAGES


def test_a_copy_of_the_client_is_one_too():
    # pydantic-ai sends a request that sets max_retries through `with_options`, a copy.
    client = ChatClient(base_url="http://127.0.0.1:9/v1", api_key="not-needed")
    assert type(client.with_options(max_retries=1)) is ChatClient

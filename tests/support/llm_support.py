"""A scripted model for LLM agent tests: pydantic-ai's own FunctionModel, streaming.

`SCRIPT` holds what the model answers, request by request: text, a list of tool calls
(`call(name, **args)`), or a function of the messages it was sent returning one of those.
`REQUESTS` collects the messages of every request the model really received, so a test can
tell that a replay did not call the model again.
"""

import json
from collections.abc import Callable

import pytest
from pydantic_ai import Tool
from pydantic_ai.messages import ModelMessage, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.toolsets import FunctionToolset

from playground.llm_agents import providers
from playground.llm_agents.agent import uses_mcp_servers
from playground.llm_agents.registered_toolsets import register_toolset
from playground.llm_agents.turns import run_llm_turn
from playground.runs.agents import agent

SCRIPT: list = []
REQUESTS: list[list[ModelMessage]] = []


def call(name: str, **args) -> tuple[str, dict]:
    return (name, args)


def tool_results(messages: list[ModelMessage]) -> list:
    """Return the content of every tool result in the messages, oldest first."""
    return [
        part.content
        for message in messages
        for part in getattr(message, "parts", [])
        if isinstance(part, ToolReturnPart)
    ]


async def _stream(messages: list[ModelMessage], info: AgentInfo):
    REQUESTS.append(messages)
    reply = SCRIPT[len(REQUESTS) - 1]
    if isinstance(reply, Callable):
        reply = reply(messages)
    if isinstance(reply, str):
        for word in reply.split(" "):
            yield word if word == reply.split(" ")[0] else f" {word}"
        return
    yield {
        index: DeltaToolCall(name, json.dumps(args), tool_call_id=f"call-{len(REQUESTS)}-{index}")
        for index, (name, args) in enumerate(reply)
    }


def use_scripted_model(settings, monkeypatch) -> None:
    """Declare one provider, "scripted" with model "m", whose model is the scripted
    FunctionModel (standing in for the outside service)."""
    settings.LLM_PROVIDERS = [
        {"name": "scripted", "base_url": "http://127.0.0.1:9/v1", "models": ["m"]}
    ]
    settings.LLM_BASE_URL, settings.ANTHROPIC_API_KEY = "", ""
    monkeypatch.setattr(
        providers, "build_model", lambda provider, name: FunctionModel(stream_function=_stream)
    )


def scripted(*replies) -> None:
    """Script the model's replies for the next test."""
    SCRIPT[:] = replies
    REQUESTS.clear()


# Shows the Wire panel as the LLM kind does: when it has MCP servers.
@agent(
    "test-llm",
    name="Scripted model",
    listed=False,
    shows_wire=lambda row: uses_mcp_servers(row.config),
)
async def scripted_llm(ctx, message: str) -> None:
    model = FunctionModel(stream_function=_stream)
    await run_llm_turn(ctx, model, provider_label='The model provider "scripted"')


# A toolset like a deployment would add: one harmless tool, one destructive (approval first).
DELETED: list[str] = []


def delete_file(path: str) -> str:
    """Delete a file."""
    DELETED.append(path)
    return f"deleted {path}"


def file_size(path: str) -> int:
    """Return a file's size in bytes."""
    return len(path) * 100


register_toolset(
    "test-files",
    lambda ctx: FunctionToolset(
        [Tool(delete_file, metadata={"destructive": True}), Tool(file_size)]
    ),
    title="Files (test): size and delete",
)


@pytest.fixture
def logged_in(client, alice):
    """The test client, logged in as alice."""
    client.force_login(alice)
    return client

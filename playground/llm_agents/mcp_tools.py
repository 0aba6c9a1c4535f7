"""MCP servers as toolsets of an LLM agent, through our own bridge.

Each tool call goes through `playground.mcp_bridge.calls.call_tool`, so what the server asks
becomes a part
in the chat like any other question, and each round trip is a recorded step of the turn. The
server's tool list is a recorded step too: a replay does not ask the server for it again.
The model gets a result as MCP clients give it: the content blocks (text as text, images and
audio as binary content), never the wire record with its `_meta` and `structuredContent`.
"""

import base64
import json
from typing import Any

from asgiref.sync import sync_to_async
from pydantic_ai import BinaryContent, RunContext
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset
from pydantic_ai.toolsets.abstract import ToolsetTool
from pydantic_ai.toolsets.external import TOOL_SCHEMA_VALIDATOR

from playground.mcp_bridge import calls, servers
from playground.mcp_bridge.credentials import with_person_credential
from playground.mcp_bridge.results import describe_tool_list
from playground.mcp_bridge.servers import ServerConfig
from playground.runs.runtime import TurnContext

NO_ARGUMENTS = {"type": "object", "properties": {}}


class McpToolset(AbstractToolset[TurnContext]):
    """The tools of one MCP server; `destructiveHint` marks a tool as destructive."""

    def __init__(self, server: ServerConfig, tools: list[dict]):
        self.server = server
        self.tools = tools

    @property
    def id(self) -> str:
        return f"mcp-{self.server.name}"

    async def get_tools(self, ctx: RunContext[TurnContext]) -> dict[str, ToolsetTool]:
        return {tool["name"]: self._tool(tool) for tool in self.tools}

    def _tool(self, tool: dict) -> ToolsetTool:
        hints = tool.get("annotations") or {}
        definition = ToolDefinition(
            name=tool["name"],
            description=tool.get("description") or tool.get("title") or "",
            parameters_json_schema=tool.get("inputSchema") or NO_ARGUMENTS,
            metadata={"destructive": bool(hints.get("destructiveHint"))},
        )
        return ToolsetTool(
            toolset=self, tool_def=definition, max_retries=1, args_validator=TOOL_SCHEMA_VALIDATOR
        )

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[TurnContext], tool
    ) -> Any:
        outcome = await calls.call_tool(ctx.deps, self.server, name, tool_args)
        if "error" in outcome:
            return outcome["error"]
        return for_the_model(name, outcome["result"])


def for_the_model(tool: str, result: dict) -> Any:
    """Return a CallToolResult (wire JSON) as the model's tool result: its content blocks."""
    blocks = [_block(block) for block in result.get("content") or []]
    if not blocks and result.get("structuredContent") is not None:
        # A server that sent only structured content: its JSON, as the spec's text block would.
        blocks = [json.dumps(result["structuredContent"], ensure_ascii=False)]
    if result.get("isError"):
        texts = " ".join(block for block in blocks if isinstance(block, str))
        return f"{tool} reported an error: {texts or 'no details'}"
    if not blocks:
        return f"{tool} returned nothing."
    return blocks[0] if len(blocks) == 1 else blocks


def _block(block: dict) -> str | BinaryContent:
    kind = block.get("type")
    if kind == "text":
        return block.get("text", "")
    if kind in ("image", "audio"):
        data = base64.b64decode(block.get("data", ""))
        return BinaryContent(data=data, media_type=block.get("mimeType", ""))
    if kind == "resource_link":
        return f"{block.get('name') or 'link'}: {block.get('uri', '')}"
    resource = block.get("resource") or {}
    if kind == "resource" and "text" in resource:
        return resource["text"]
    if kind == "resource" and "blob" in resource:
        data = base64.b64decode(resource["blob"])
        return BinaryContent(data=data, media_type=resource.get("mimeType", ""))
    return f"({kind or 'unknown'} content, which this playground does not pass on)"


async def mcp_toolsets(ctx: TurnContext, names: list[str]) -> list[McpToolset]:
    """Return a toolset for each named server the agent's owner may use."""
    configured = servers.load()
    toolsets = []
    for name in names:
        server = configured.get(name)
        if server is None or not await sync_to_async(server.allows)(ctx.user):
            raise LookupError(f'The MCP server "{name}" is not available to this agent.')
        server = await with_person_credential(ctx, server)
        if server is None:
            raise LookupError(f'The MCP server "{name}" needs your connection, and has none.')
        tools = await ctx.step(
            f"mcp: list the tools of {name}",
            calls.list_tools,
            server,
            ctx.conversation.pk,
            arguments="",
            describe=describe_tool_list,
        )
        toolsets.append(McpToolset(server, tools))
    return toolsets

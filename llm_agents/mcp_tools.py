"""MCP servers as toolsets of an LLM agent, through our own bridge.

Each tool call goes through `mcp_bridge.calls.call_tool`, so what the server asks becomes a part
in the chat like any other question, and each round trip is a recorded step of the turn. The
server's tool list is a recorded step too: a replay does not ask the server for it again.
"""

from typing import Any

from asgiref.sync import sync_to_async
from pydantic_ai import RunContext
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset
from pydantic_ai.toolsets.abstract import ToolsetTool
from pydantic_ai.toolsets.external import TOOL_SCHEMA_VALIDATOR

from mcp_bridge import calls, servers
from mcp_bridge.servers import ServerConfig
from playground.runtime import TurnContext

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
        return outcome["result"] if "result" in outcome else outcome["error"]


async def mcp_toolsets(ctx: TurnContext, names: list[str]) -> list[McpToolset]:
    """Return a toolset for each named server the agent's owner may use."""
    configured = servers.load()
    toolsets = []
    for name in names:
        server = configured.get(name)
        if server is None or not await sync_to_async(server.allows)(ctx.user):
            raise LookupError(f'The MCP server "{name}" is not available to this agent.')
        tools = await ctx.step(f"mcp: list the tools of {name}", calls.list_tools, server)
        toolsets.append(McpToolset(server, tools))
    return toolsets

"""The playground as an MCP server: the official SDK's `MCPServer`, with the asking tools and
MCP tasks (served at /mcp by `mount`)."""

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

from playground.mcp_server.tasks import Tasks, TasksMiddleware
from playground.mcp_server.tools import list_waiting, request_approval, request_input

mcp = MCPServer(
    "elicitation-playground",
    title="Elicitation playground",
    instructions=(
        "Ask a person a typed question (request_input) or for approval (request_approval) and "
        "get their answer as data. A call waits for the answer; list_waiting shows what waits."
    ),
    extensions=[Tasks()],
    middleware=[TasksMiddleware()],
)
ASKS = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=True)
mcp.add_tool(request_input, annotations=ASKS)
mcp.add_tool(request_approval, annotations=ASKS)
mcp.add_tool(list_waiting, annotations=ToolAnnotations(read_only_hint=True))

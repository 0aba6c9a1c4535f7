"""Keep one Agent row per configured server, so each shows on the home page as an agent.

The row holds the server's name, title and description and its last known status; how to reach
the server (command, URL, environment variable names) stays in the servers file.
"""

from playground.mcp_bridge import servers
from playground.runs.declared import Declared

KIND = "mcp"
SERVERS = Declared(
    kind=KIND,
    key="server",
    load=servers.load,
    error=servers.ServersFileError,
    one="MCP server",
    file="servers file",
    check="mcp_check",
    description="An MCP server. Say anything to see its tools, or type tool_name {json}.",
)
sync_agents = SERVERS.sync
sync_agents_after_migrate = SERVERS.sync_after_migrate


def record_status(server: servers.ServerConfig, status: str) -> None:
    """Remember the last check's result for the admin."""
    SERVERS.record_status(server.name, status)

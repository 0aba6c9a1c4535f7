"""A stdio MCP server (official SDK) that says which MCP_TEST_TOKEN it was started with, as a
digest: the bridge passes a person's credential to a process started for them."""

import hashlib
import os

from mcp.server.mcpserver import MCPServer

server = MCPServer("env-server")


@server.tool()
def token() -> str:
    """Say which MCP_TEST_TOKEN this process has, as a digest (never the value)."""
    value = os.environ.get("MCP_TEST_TOKEN")
    return (
        "MCP_TEST_TOKEN: none"
        if value is None
        else "MCP_TEST_TOKEN: sha256 " + (hashlib.sha256(value.encode()).hexdigest())
    )


@server.tool()
def pid() -> str:
    """Say which process this is (so a test can see it end)."""
    return f"pid {os.getpid()}"


if __name__ == "__main__":
    server.run("stdio")

"""Open a connection to a configured server with the official SDK, and say plainly why one
could not be opened (command not found, refused, TLS, protocol version)."""

import ssl
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.session import ElicitationFnT, MessageHandlerFnT
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import UNSUPPORTED_PROTOCOL_VERSION
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS

from mcp_bridge.servers import ServerConfig

CONNECT_SECONDS = 30.0


@asynccontextmanager
async def connect(
    server: ServerConfig,
    *,
    elicitation_callback: ElicitationFnT | None = None,
    message_handler: MessageHandlerFnT | None = None,
) -> AsyncIterator[Client]:
    """Connect to `server` with the official SDK client (see `ServerConfig.protocol`)."""
    async with AsyncExitStack() as stack:
        if server.transport == "stdio":
            target = StdioServerParameters(
                command=server.command,
                args=list(server.args),
                env=server.environment(),
                cwd=server.cwd or None,
            )
        else:
            http = await stack.enter_async_context(
                httpx2.AsyncClient(
                    headers=server.header_values(),
                    timeout=httpx2.Timeout(CONNECT_SECONDS, read=server.timeout_seconds),
                )
            )
            target = streamable_http_client(server.url, http_client=http)
        client = Client(
            target,
            mode=server.protocol,
            read_timeout_seconds=server.timeout_seconds,
            elicitation_callback=elicitation_callback,
            message_handler=message_handler,
            cache=None,
        )
        yield await stack.enter_async_context(client)


def describe_error(server: ServerConfig, error: BaseException) -> str:
    """Return what went wrong talking to `server`, in words a developer can act on."""
    cause = root_cause(error)
    name = server.display_name
    if isinstance(cause, FileNotFoundError):
        return f"Could not start {name}: command not found: {server.command}."
    if isinstance(cause, PermissionError):
        return f"Could not start {name}: {server.command} is not executable."
    if any(isinstance(e, ssl.SSLError) or "[SSL" in str(e) for e in _causes(cause)):
        return f"Could not connect to {name} at {server.url}: TLS failed ({cause})."
    if isinstance(cause, httpx2.ConnectError | ConnectionRefusedError):
        return f"Could not connect to {name} at {server.url}: connection refused or unreachable."
    if isinstance(cause, httpx2.HTTPStatusError):
        status = cause.response.status_code
        return f"{name} answered HTTP {status} at {server.url}."
    if isinstance(cause, TimeoutError | httpx2.TimeoutException):
        return timed_out(server)
    if isinstance(cause, MCPError) and "timed out" in cause.message:
        return f"{timed_out(server)[:-1]} ({cause.message})."
    if isinstance(cause, RuntimeError) and "protocol version" in str(cause):
        # The SDK ends its message with the version the server answered initialize with.
        return unsupported_version(name, [str(cause).rpartition(": ")[2]])
    if isinstance(cause, MCPError) and cause.code == UNSUPPORTED_PROTOCOL_VERSION:
        data = cause.data if isinstance(cause.data, dict) else {}
        return unsupported_version(name, [str(v) for v in data.get("supported") or []])
    if isinstance(cause, MCPError) and cause.message == "Connection closed":
        return f"{name} closed the connection (the server stopped or crashed)."
    if isinstance(cause, MCPError):
        return f"{name} returned an error: {cause.message} (code {cause.code})."
    return f"{name} failed: {type(cause).__name__}: {cause}"[:500]


def unsupported_version(name: str, spoken: list[str]) -> str:
    theirs = " or ".join(spoken) or "(not named)"
    ours = f"{KNOWN_PROTOCOL_VERSIONS[0]} to {KNOWN_PROTOCOL_VERSIONS[-1]}"
    return (
        f"{name} speaks MCP protocol version {theirs}, which this playground does not "
        f"(it speaks {ours}): update the server or its MCP SDK."
    )


def timed_out(server: ServerConfig) -> str:
    return f"{server.display_name} did not answer within {server.timeout_seconds:g} seconds."


def root_cause(error: BaseException) -> BaseException:
    """Return the error inside the exception groups anyio wraps failures in."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def _causes(error: BaseException | None):
    while error is not None:
        yield error
        error = error.__cause__ or error.__context__

"""Open a connection to a configured server with the official SDK, and say plainly why one
could not be opened (command not found, refused, TLS, protocol version).

Every connection declares the same client capabilities — form and URL elicitation, nothing
else (no sampling, no roots: the playground implements neither) — because servers offer tools by
what the client declares (the reference server lists its elicitation tools only to clients that
declare elicitation). The SDK derives the declaration from the callbacks a client is given, so
`connect` always gives an elicitation callback: one that asks the person during a tool call,
or one that refuses questions where none can be asked (listing tools).

The protocol is picked per server by what it answers: "auto" speaks 2026-07-28 to a server that
does, else the handshake. A server whose tool then pushes `elicitation/create` (which only a
legacy session carries) fails with the SDK's "no back-channel" error; the bridge then calls it
again on a legacy session and `learn_legacy` remembers, in this process, to use one from then on.
"""

import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.session import ElicitationFnT, MessageHandlerFnT
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_REQUEST, UNSUPPORTED_PROTOCOL_VERSION, ErrorData
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS

from playground.connections.models import ConnectionGoneError, Credential
from playground.mcp_bridge.servers import ServerConfig
from playground.mcp_bridge.wire import watched
from playground.runs.wire import WireLog

CONNECT_SECONDS = 30.0
# The SDK's NoBackChannelError text (sent as INVALID_REQUEST): a server-initiated request had
# no channel to travel on.
NO_BACK_CHANNEL = "this transport context has no back-channel for server-initiated requests"

# Servers (name, where) found to need a legacy session, in this process.
_learned_legacy: set[tuple[str, str]] = set()


def protocol_for(server: ServerConfig) -> str:
    """Return the mode to connect to `server` in: as configured, or legacy once learned."""
    if (server.name, server.target) in _learned_legacy:
        return "legacy"
    return server.protocol


def learn_legacy(server: ServerConfig) -> None:
    """Remember that `server`'s tools push questions, so its connections are legacy sessions."""
    _learned_legacy.add((server.name, server.target))


def forget_learned_protocols() -> None:
    """Forget what `learn_legacy` learned (tests start from the configured protocols)."""
    _learned_legacy.clear()


def needs_back_channel(error: BaseException) -> bool:
    """Return whether `error` is the server's tool failing to push a request to us."""
    cause = root_cause(error)
    return (
        isinstance(cause, MCPError)
        and cause.code == INVALID_REQUEST
        and NO_BACK_CHANNEL in cause.message
    )


@asynccontextmanager
async def connect(
    server: ServerConfig,
    *,
    elicitation_callback: ElicitationFnT | None = None,
    message_handler: MessageHandlerFnT | None = None,
    log_to: int | None = None,
    ended: Callable[[], None] | None = None,
) -> AsyncIterator[Client]:
    """Connect to `server` with the official SDK client (see `ServerConfig.protocol`).

    Without `elicitation_callback` the connection still declares elicitation (so the server
    lists the same tools as for a call) and answers a question with an error saying why.
    With `log_to` (a conversation's id) every message goes to that conversation's Wire panel,
    header and credential values removed; `ended` is called when the server stops sending.
    """
    environment, headers, auth = server.environment(), server.header_values(), None
    if server.credential is not None:  # the person's own, opened now
        credential = await server.credential()
        environment |= credential.environment()
        auth = PersonCredential(server.credential, credential)
    log = None
    if log_to is not None:
        sent = headers | (credential.headers() if auth else {})  # (auth: sent by PersonCredential)
        log = WireLog(
            log_to, f"MCP: {server.display_name}", [*environment.values(), *sent.values()]
        )
        log.event(
            _opening(server, mode=protocol_for(server), environment=environment, headers=sent)
        )
    async with AsyncExitStack() as stack:
        if server.transport == "stdio":
            target = stdio_client(
                StdioServerParameters(
                    command=server.command,
                    args=list(server.args),
                    env=environment,
                    cwd=server.cwd or None,
                )
            )
        else:
            http = await stack.enter_async_context(
                httpx2.AsyncClient(
                    headers=headers,
                    auth=auth,
                    timeout=httpx2.Timeout(CONNECT_SECONDS, read=server.timeout_seconds),
                )
            )
            target = streamable_http_client(server.url, http_client=http)
        client = Client(
            watched(target, log, ended),
            mode=protocol_for(server),
            read_timeout_seconds=server.timeout_seconds,
            elicitation_callback=elicitation_callback or _no_questions(server),
            message_handler=message_handler,
            cache=None,
        )
        yield await stack.enter_async_context(client)


class PersonCredential(httpx2.Auth):
    """Send the person's credential with each request of a session; on a 401, renew it once.

    A session can outlive its access token's acceptance (the provider revoked and re-issued
    it, or gave it a shorter life than it said): the refused request is sent again with the
    renewed token (`playground.connections.models.use`, the row locked as on any use). A credential
    that
    cannot be renewed (typed by hand) leaves the 401 to fail the call; a grant the provider
    no longer accepts is deleted as it fails, so the card asks again.
    """

    requires_request_body = True  # (read, so the refused request can be sent again)

    def __init__(self, opener: Callable[..., Awaitable[Credential]], credential: Credential):
        self.opener, self.credential = opener, credential

    async def async_auth_flow(self, request: httpx2.Request):
        request.headers.update(self.credential.headers())
        response = yield request
        if response.status_code != 401:
            return
        renewed = await self.opener(refused=self.credential)
        if renewed.values == self.credential.values:
            return  # nothing to renew: the call fails with the 401
        self.credential = renewed
        request.headers.update(renewed.headers())
        yield request


def _opening(server: ServerConfig, *, mode: str, environment: dict, headers: dict) -> str:
    """Return how a connection is opened, for the wire: where, and the names of what is sent
    with it (never a value)."""
    if server.transport == "stdio":
        where = f"Starting {server.target} (stdio)"
        sent = [f"{name}=[redacted]" for name in environment]
    else:
        where = f"Connecting to {server.url} (Streamable HTTP)"
        sent = [f"{name}: [redacted]" for name in headers]
    return f"{where}, protocol {mode}" + (f"; with {', '.join(sent)}" if sent else "") + "."


def _no_questions(server: ServerConfig) -> ElicitationFnT:
    async def refuse(context, params) -> ErrorData:
        return refusal(server)

    return refuse


def refusal(server: ServerConfig) -> ErrorData:
    """Return the answer to a question asked where none can be (outside a tool call)."""
    return ErrorData(
        code=INVALID_REQUEST,
        message=f"{server.display_name} asked a question outside a tool call; the playground "
        "answers questions only while one of its tools is being called.",
    )


def describe_error(server: ServerConfig, error: BaseException) -> str:
    """Return what went wrong talking to `server`, in words a developer can act on.

    Never its address (URL or command): every chat user reads this; staff find it on the
    admin's turn page (`report_error`'s `address`), and `mcp_check` prints it beside."""
    cause = root_cause(error)
    name = server.display_name
    if isinstance(cause, ConnectionGoneError):
        return f"{name} needs your {server.connection} connection: {cause}"
    if isinstance(cause, FileNotFoundError):
        return f"Could not start {name}: its command was not found."
    if isinstance(cause, PermissionError):
        return f"Could not start {name}: its command is not executable."
    if any(isinstance(e, ssl.SSLError) or "[SSL" in str(e) for e in _causes(cause)):
        return f"Could not connect to {name}: TLS failed ({cause})."
    if isinstance(cause, httpx2.ConnectError | ConnectionRefusedError):
        return f"Could not connect to {name}: connection refused or unreachable."
    if isinstance(cause, httpx2.HTTPStatusError):
        return f"{name} answered HTTP {cause.response.status_code}."
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
    if needs_back_channel(cause):
        return (
            f"{name} asked a question (elicitation/create) on a connection that cannot carry it. "
            f'Set protocol = "legacy" under [servers.{server.name}] in the servers file; if it '
            "is set already, the server keeps no session to ask on (a stateless HTTP server "
            "cannot ask questions this way)."
        )
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

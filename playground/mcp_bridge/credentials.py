"""A server with `connection = "<service>"` takes the person's own credential for each call.

The person's usable connection is found, or asked for, as an AG-UI agent's is
(`playground.connections.required`). The credential itself is opened only when the SDK connection
is made
(`playground.mcp_bridge.connection.connect`), never recorded: the SDK gets the stored access token
as the
`Authorization` header, renewed first when it runs out, and during a session when the server
refuses it (HTTP 401) before then.
"""

from dataclasses import replace
from functools import partial

from playground.connections.required import require_connection
from playground.mcp_bridge.servers import ServerConfig
from playground.runs.runtime import TurnContext


async def with_person_credential(ctx: TurnContext, server: ServerConfig) -> ServerConfig | None:
    """Return `server` taking the person's credential, or None when they would not connect.

    Raise `playground.connections.services.UnknownServiceError` (or `ServicesFileError`) when the
    service
    is not declared.
    """
    if not server.connection:
        return server
    reference = await require_connection(
        ctx,
        server.connection,
        reason=f"{server.display_name} uses your own {server.connection} credential for its tools.",
    )
    if reference is None:
        return None
    return replace(server, credential=partial(ctx.connection, reference))

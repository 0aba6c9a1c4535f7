"""A server with `connection = "<service>"` takes the person's own credential for each call.

The person's connection is looked up as a recorded step (so a replay decides the same way); a
person with none is asked for one with a `connection` card. So is a person whose connection
can no longer be used: an OAuth grant the provider refuses to renew (revoked or expired) is
deleted as it fails, and the card asks again. The credential itself is opened only when the
SDK connection is made (`mcp_bridge.connection.connect`), never recorded: the SDK gets the
stored access token as the `Authorization` header, renewed first when it runs out, and during a
session when the server refuses it (HTTP 401) before then.
"""

from dataclasses import replace
from functools import partial

from connections.models import ConnectionGoneError, use
from mcp_bridge.servers import ServerConfig
from playground.runtime import TurnContext


async def with_person_credential(ctx: TurnContext, server: ServerConfig) -> ServerConfig | None:
    """Return `server` taking the person's credential, or None when they would not connect.

    Raise `connections.services.UnknownServiceError` (or `ServicesFileError`) when the service
    is not declared.
    """
    if not server.connection:
        return server
    reference = await ctx.find_connection(server.connection)
    if reference is not None:
        # Recorded, so a replay takes the same path; renews an OAuth grant that runs out.
        usable = await ctx.step(
            f"connection: {server.connection} usable", _usable, ctx.user, reference, shown=False
        )
        reference = reference if usable else None
    if reference is None:
        response = await ctx.request_connection(
            server.connection,
            reason=f"{server.display_name} uses your own {server.connection} credential "
            "for its tools.",
        )
        if not response.accepted:
            return None
        reference = response.content["connection"]
    return replace(server, credential=partial(ctx.connection, reference))


def _usable(user, reference: str) -> bool:
    try:
        use(user, reference)
    except ConnectionGoneError:
        return False
    return True

"""Find or request a person's connection, for an agent that runs with their own credential (an
MCP server's or an AG-UI agent's `connection = "<service>"`).

The lookup and the check that the connection can still be used are recorded steps of the turn,
so a replay decides the same way. A person with none is asked for one with a `connection` card;
so is a person whose connection can no longer be used: an OAuth grant the provider refuses to
renew (revoked or expired) is deleted as it fails, and the card asks again.
"""

from collections.abc import Callable
from typing import Any, Protocol

from playground.connections.models import ConnectionGoneError, use


class Turn(Protocol):
    """What this needs of a turn's context (`playground.runs.runtime.TurnContext`, a layer
    above)."""

    user: Any

    async def find_connection(self, service: str) -> str | None: ...

    async def request_connection(self, service: str, *, reason: str | None = None) -> Any: ...

    async def step(self, name: str, fn: Callable[..., Any], *args: Any, shown: bool) -> Any: ...


async def require_connection(ctx: Turn, service: str, *, reason: str) -> str | None:
    """Return the reference of the person's usable connection to `service`, asking them for one
    (the card shows `reason`) when they have none; None when they would not connect.

    Raise `playground.connections.services.UnknownServiceError` (or `ServicesFileError`) when the
    service
    is not declared.
    """
    reference = await ctx.find_connection(service)
    if reference is not None:
        # Recorded, so a replay takes the same path; renews an OAuth grant that runs out.
        usable = await ctx.step(
            f"connection: {service} usable", _usable, ctx.user, reference, shown=False
        )
        reference = reference if usable else None
    if reference is None:
        response = await ctx.request_connection(service, reason=reason)
        if not response.accepted:
            return None
        reference = response.content["connection"]
    return reference


def _usable(user, reference: str) -> bool:
    try:
        use(user, reference)
    except ConnectionGoneError:
        return False
    return True

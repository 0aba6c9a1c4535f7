"""Map our elicitation contract to MCP's JSON-RPC wire (spec 2025-11-25), and back again.

Pure Python (no Django, and no SDK: importing `mcp_types` takes a second), so the MCP bridge
answers servers with it and the workbench shows the same JSON a person would see on the wire:

- `elicitation_create` is the `elicitation/create` request a server sends for a form.
- `elicit_result` turns our envelope into the `ElicitResult` a client answers with. MCP has
  accept, decline and cancel only: our `humanFriendlyMessage` and `redacted` notes stay ours,
  and a prose `respond` has no MCP form (the bridge never offers it).
- `degraded_error` is the JSON-RPC error a client answers a payload it cannot show with, so the
  server learns why at once instead of waiting for a form that never comes.
"""

from typing import Any

from elicitation.contract import degradation_error

INVALID_PARAMS = -32602  # JSON-RPC 2.0's "Invalid params" (`mcp_types.INVALID_PARAMS`)

__all__ = ["degraded_error", "elicit_result", "elicitation_create"]

_ACTIONS = ("accept", "decline", "cancel")


def elicitation_create(
    message: str, requested_schema: dict[str, Any], *, request_id: int | str = 1
) -> dict[str, Any]:
    """Return the JSON-RPC `elicitation/create` request (form mode) asking `message`."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "elicitation/create",
        "params": {"mode": "form", "message": message, "requestedSchema": requested_schema},
    }


def elicit_result(envelope: dict[str, Any]) -> dict[str, Any]:
    """Return the MCP `ElicitResult` for one of our envelopes.

    An accept carries its content when it has one (a URL-mode accept has none). Raise
    ValueError for an action MCP has no word for (`respond`).
    """
    action = envelope.get("action")
    if action not in _ACTIONS:
        raise ValueError(f"MCP has no elicitation action {action!r}")
    result: dict[str, Any] = {"action": action}
    if action == "accept" and "content" in envelope:
        result["content"] = envelope["content"]
    return result


def degraded_error(reason: str, request_id: int | str) -> dict[str, Any]:
    """Return the JSON-RPC error answering an `elicitation/create` we cannot show, and why."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {"code": INVALID_PARAMS, "message": degradation_error(reason)},
    }

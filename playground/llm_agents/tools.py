"""The tools an LLM agent's model can call: `request_input`, `request_connection` (where the
deployment declares services), and the toolsets a deployment adds.

`request_input` is a deferred tool: a payload the contract accepts ends the model's run with a
question (`CallDeferred`), which the turn shows as a form; one it cannot show is answered at
once with the degradation text, so the model can correct it. Tools of the toolsets a deployment
registers (playground.llm_agents.registered_toolsets) run
as recorded steps of the turn (a replay never runs them twice); MCP servers' tools go through
our bridge, which records its own round trips. Tools marked destructive ask for approval
first (`ApprovalRequired`), through the approval card.

`request_connection` is deferred the same way and shown as a `connection` card: the person
types the credential (or signs in) in the vault's own form, and the model gets the reference
only (`{"action": "accept", "content": {"connection", "service", "label"}}`), never a value.
"""

from typing import Any

from pydantic_ai import CallDeferred, RunContext, Tool
from pydantic_ai.toolsets import AbstractToolset, ApprovalRequiredToolset, WrapperToolset
from pydantic_ai.toolsets.abstract import ToolsetTool

from elicitation import contract
from elicitation.frontend_tools import REQUEST_INPUT_DESCRIPTION
from playground.connections import services
from playground.llm_agents.mcp_tools import mcp_toolsets
from playground.llm_agents.registered_toolsets import TOOLSETS
from playground.runs.runtime import TurnContext

REQUEST_INPUT = "request_input"


async def request_input(
    ctx: RunContext[TurnContext], message: str, requestedSchema: dict[str, Any]
) -> str:
    """Defer a question the contract accepts; answer one it cannot show with the reason."""
    parsed = contract.parse_request({"message": message, "requestedSchema": requestedSchema})
    if isinstance(parsed, contract.Degraded):
        # Recorded as a degraded part (visible in the admin); the model gets the reason now.
        response = await ctx.deps.elicit(str(message), requestedSchema, id=ctx.tool_call_id)
        return response.text
    raise CallDeferred(kind="question")


# Arguments are validated by the library: a model sending broken JSON is told, and retries.
REQUEST_INPUT_TOOL = Tool(
    request_input, name=REQUEST_INPUT, description=REQUEST_INPUT_DESCRIPTION, takes_ctx=True
)


REQUEST_CONNECTION = "request_connection"


async def request_connection(ctx: RunContext[TurnContext], service: str, reason: str = "") -> str:
    """Defer asking for a declared service's connection; say at once when it is not declared."""
    try:
        services.get(service)
    except (services.UnknownServiceError, services.ServicesFileError) as error:
        return str(error)
    raise CallDeferred(kind="question")  # (answered by the card, as request_input is)


def request_connection_tool(declared: dict[str, services.Service]) -> Tool | None:
    """Return the `request_connection` tool naming the declared services, or None if none."""
    if not declared:
        return None
    names = ", ".join(f"{name} ({service.title})" for name, service in declared.items())
    description = (
        "Ask the person to connect one of their accounts, shown to them as a card where they "
        "enter the credential or sign in; you never see it. Services: "
        f"{names}. `reason` says why you need it. The result is "
        '{"action": "accept", "content": {"connection": "<id>", "service": ..., "label": ...}} '
        'or {"action": "decline"} / {"action": "cancel"} (respect these: do not ask again at '
        "once). Never ask for a password, token or key any other way."
    )
    return Tool(
        request_connection, name=REQUEST_CONNECTION, description=description, takes_ctx=True
    )


async def toolsets_for(ctx: TurnContext, config: dict) -> list[AbstractToolset[TurnContext]]:
    """Return the agent's toolsets (registered ones as recorded steps, MCP servers through the
    bridge), each asking for approval before a destructive call."""
    toolsets: list[AbstractToolset[TurnContext]] = []
    for name in config.get("toolsets", []):
        if name not in TOOLSETS:
            raise LookupError(f'The toolset "{name}" is not available on this playground.')
        toolsets.append(RecordedToolset(TOOLSETS[name](ctx)))
    toolsets += await mcp_toolsets(ctx, config.get("mcp_servers", []))
    return [ApprovalRequiredToolset(toolset, is_destructive) for toolset in toolsets]


def is_destructive(ctx: RunContext, tool_def, args: dict) -> bool:
    """Return whether a call changes something the person would want to approve first."""
    return bool((tool_def.metadata or {}).get("destructive"))


class RecordedToolset(WrapperToolset[TurnContext]):
    """Run each tool call as a step of the turn: a replay returns the recorded result."""

    async def call_tool(
        self,
        name: str,
        tool_args: dict[str, Any],
        ctx: RunContext[TurnContext],
        tool: ToolsetTool[TurnContext],
    ) -> Any:
        call = super().call_tool
        return await ctx.deps.step(
            f"tool {name}", call, name, tool_args, ctx, tool, arguments=tool_args
        )

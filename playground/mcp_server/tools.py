"""The MCP tools: `request_input`, `request_approval` and `list_waiting`.

A call that asks is held until the person answers, holding a coroutine and its socket only (no
thread, no database connection): it waits on the part's channel-layer group, as the HTTP API's
long-polls do, and sends a progress notification every `PROGRESS_SECONDS`. Inside a
task-augmented call (`tasks.TasksMiddleware`) it records its question and returns at once.

Who calls is the API token the mount authenticated (`TOKEN` in the request's scope); the client
names itself in `clientInfo` (the handshake's, or each request's `_meta` under 2026-07-28).
"""

import json
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Annotated, Any

from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent
from pydantic import Field

from elicitation import contract
from elicitation.database_hop import in_db
from elicitation.models import Part
from playground.api.models import ApiToken
from playground.chat.part_waiting import part_group, wait_in_group
from playground.mcp_server import questions

TOKEN = "playground.api_token"  # the scope's key: the token the mount authenticated
PROGRESS_SECONDS = 15

# Tool arguments, typed for the tools' input schemas.
Assignees = Annotated[
    list[str] | None,
    Field(
        description='Who may answer besides you: "group:<name>" and "user:<username>" entries, '
        "as in the HTTP API. An unknown name is an error and nothing is asked."
    ),
]
ConversationRef = Annotated[
    int | str | None,
    Field(
        description="The conversation to ask in: its id, or a title (your newest conversation "
        "with that title from this client, else a new one)."
    ),
]
IdempotencyKey = Annotated[
    str | None,
    Field(max_length=200, description="Calling again with the same key asks once (24 hours)."),
]


@dataclass
class TaskCall:
    """A task-augmented call in progress: the tool records its question instead of waiting."""

    part: Part | None = None


task_call: ContextVar[TaskCall | None] = ContextVar("mcp_task_call", default=None)


def token_of(ctx: ServerRequestContext) -> ApiToken:
    return ctx.request.scope[TOKEN]


def client_name(ctx: ServerRequestContext) -> str:
    """Return the name the client gives itself, else "MCP client"."""
    params = ctx.session.client_params
    info = params.client_info if params else None
    name = info and (info.title or info.name).strip()
    return (name or "MCP client")[:80]


async def _ask(ctx: Context, body: dict, **options) -> CallToolResult:
    request = ctx.request_context
    token = token_of(request)
    try:
        part = await in_db(questions.ask)(token, client_name(request), body, **options)
    except (questions.NotFoundError, questions.RefusedError) as error:
        raise ToolError(str(error)) from None
    if part.state == Part.State.DEGRADED:
        return _error(contract.degradation_error(part.degraded_reason))
    if (asked := task_call.get()) is not None:
        asked.part = part  # the task is made and returned instead (TasksMiddleware)
        return answered(part)
    return answered(await _held_until_settled(ctx, token, part))


async def _held_until_settled(ctx: Context, token: ApiToken, part: Part) -> Part:
    """Wait for the part to settle, telling the client every PROGRESS_SECONDS that it waits
    (a client's own timeout ends the wait: the question stays, and a retry finds it)."""
    waited = 0
    while part.is_pending:
        await ctx.report_progress(waited, message="Waiting for a person to answer.")
        part = await settled_within(token, part, PROGRESS_SECONDS)
        waited += PROGRESS_SECONDS
    return part


async def settled_within(token: ApiToken, part: Part, seconds: float) -> Part:
    """Return the part once it settles, or as it is after `seconds`, waiting on its group."""

    async def settled():
        found = await in_db(questions.find_part)(token, part.pk)
        return None if found.is_pending else found

    return await wait_in_group(part_group(part.pk), settled, seconds) or part


def answered(part: Part) -> CallToolResult:
    """The envelope as structured content, with a line of text for models."""
    envelope = part.response or {}
    return CallToolResult(
        content=[TextContent(type="text", text=_text(envelope))],
        structured_content=envelope,
        _meta={"requestId": part.pk, "conversationId": part.conversation_id},
    )


def _text(envelope: dict) -> str:
    match envelope.get("action"):
        case "accept":
            return "The person answered: " + json.dumps(envelope.get("content") or {})
        case "respond":
            return "The person replied: " + envelope.get("text", "")
        case "decline":
            return "The person declined." + _said(envelope)
        case "cancel":
            return "The question was cancelled; nothing was answered."
    return json.dumps(envelope)


def _said(envelope: dict) -> str:
    message = envelope.get("humanFriendlyMessage")
    return f" They said: {message}" if message else ""


def _error(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


async def request_input(
    message: Annotated[str, Field(description="The question, shown above the form.")],
    requestedSchema: Annotated[
        dict[str, Any], Field(description="A flat JSON schema of the answer (MCP form schema).")
    ],
    ctx: Context,
    assignees: Assignees = None,
    conversation: ConversationRef = None,
    idempotencyKey: IdempotencyKey = None,
) -> CallToolResult:
    """Ask a person a typed question and return their answer (an elicitation envelope)."""
    body = {"message": message, "requestedSchema": requestedSchema, "assignees": assignees}
    return await _ask(ctx, body, conversation=conversation, idempotency_key=idempotencyKey or "")


async def request_approval(
    action: Annotated[str, Field(min_length=1, description="What you are about to do.")],
    ctx: Context,
    details: Annotated[
        dict[str, Any] | None, Field(description="Facts the approver reads, name to value.")
    ] = None,
    approverGroup: Annotated[
        str | None,
        Field(description="A group that must approve: four eyes, so not you yourself."),
    ] = None,
    conversation: ConversationRef = None,
    idempotencyKey: IdempotencyKey = None,
) -> CallToolResult:
    """Ask for approval before an action; the answer's action is "accept" when approved."""
    body = questions.approval_body(action, details, approverGroup)
    return await _ask(
        ctx,
        body,
        conversation=conversation,
        idempotency_key=idempotencyKey or "",
        requires_other=bool(approverGroup),
    )


async def list_waiting(ctx: Context) -> CallToolResult:
    """List your questions still waiting for an answer, oldest first."""
    parts = await in_db(questions.waiting)(token_of(ctx.request_context))
    waiting = [
        {
            "requestId": part.pk,
            "conversationId": part.conversation_id,
            "message": part.message,
            "createdAt": part.created_at.isoformat(),
        }
        for part in parts
    ]
    lines = [f"{item['requestId']}: {item['message']}" for item in waiting]
    text = "\n".join(lines) or "Nothing is waiting for an answer."
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content={"waiting": waiting}
    )

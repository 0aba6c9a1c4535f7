"""The playground as an MCP server (the official SDK's `MCPServer`): ask a person from any client.

Tools: `request_input`, `request_approval`, `list_waiting`. A call that asks is held until the
person answers, holding a coroutine and its socket only (no thread, no database connection):
it waits on the part's channel-layer group, as the HTTP API's long-polls do, and sends a
progress notification every `PROGRESS_SECONDS`. A call the client marks as a task returns a
task at once instead (`tasks/*`, served by the `Tasks` extension), kept in the database, so it
survives a restart and holds nothing while it waits.

Who calls is the API token the mount authenticated (`mount.TOKEN`); the client names itself
in `clientInfo` (the handshake's, or each request's `_meta` under 2026-07-28).
"""

import json
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Annotated, Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    CallToolResult,
    CancelTaskRequestParams,
    CancelTaskResult,
    CreateTaskResult,
    GetTaskPayloadRequestParams,
    GetTaskRequestParams,
    GetTaskResult,
    ListTasksResult,
    PaginatedRequestParams,
    Task,
    TextContent,
    ToolAnnotations,
)
from pydantic import Field

from api.models import ApiToken
from elicitation import contract
from elicitation.database_hop import in_db
from elicitation.models import Part
from playground.mcp_server import questions
from playground.mcp_server.models import McpTask
from playground.part_waiting import part_group, wait_in_group

TOKEN = "playground.api_token"  # the scope's key: the token the mount authenticated
TASKS = "io.modelcontextprotocol/tasks"
PROGRESS_SECONDS = 15
POLL_MS = 2000
ASKING_TOOLS = {"request_input", "request_approval"}

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


_task_call: ContextVar[TaskCall | None] = ContextVar("mcp_task_call", default=None)


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
    if (task_call := _task_call.get()) is not None:
        task_call.part = part  # the task is made and returned instead (TasksMiddleware)
        return _answered(part)
    return _answered(await _held_until_settled(ctx, token, part))


async def _held_until_settled(ctx: Context, token: ApiToken, part: Part) -> Part:
    """Wait for the part to settle, telling the client every PROGRESS_SECONDS that it waits
    (a client's own timeout ends the wait: the question stays, and a retry finds it)."""
    waited = 0

    async def settled():
        found = await in_db(questions.find_part)(token, part.pk)
        return None if found.is_pending else found

    while part.is_pending:
        await ctx.report_progress(waited, message="Waiting for a person to answer.")
        part = await wait_in_group(part_group(part.pk), settled, PROGRESS_SECONDS) or part
        waited += PROGRESS_SECONDS
    return part


def _answered(part: Part) -> CallToolResult:
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


class TasksMiddleware:
    """A `tools/call` with `task`: ask, and return the question's task at once (no wait).

    A server middleware, not the extension's `intercept_tool_call`: on handshake-era versions
    the SDK sieves what the tool-call handler returns to a `CallToolResult`, which would drop
    the task; a middleware's result goes out as it is.
    """

    async def __call__(self, ctx: ServerRequestContext, call_next: CallNext) -> HandlerResult:
        params = ctx.params if isinstance(ctx.params, Mapping) else {}
        task = params.get("task")
        if ctx.method != "tools/call" or params.get("name") not in ASKING_TOOLS:
            return await call_next(ctx)
        if not isinstance(task, Mapping):
            return await call_next(ctx)
        task_call = TaskCall()
        reset = _task_call.set(task_call)
        try:
            result = await call_next(ctx)
        finally:
            _task_call.reset(reset)
        if task_call.part is None:
            return result  # refused before anything was asked: the tool's error
        ttl = task.get("ttl") if isinstance(task.get("ttl"), int) else None
        made = await in_db(questions.task_for)(token_of(ctx), task_call.part, ttl)
        created = CreateTaskResult(task=_task(made))
        return created.model_dump(by_alias=True, mode="json", exclude_none=True)


def _task(task: McpTask) -> Task:
    part = task.part
    if task.cancelled_at is not None:
        status, message = "cancelled", "Cancelled by the client."
    elif part.is_pending:
        status, message = "working", "Waiting for a person to answer."
    else:
        status, message = "completed", f"Answered: {part.state}."
    updated = task.cancelled_at or part.settled_at or task.created_at
    return Task(
        task_id=str(task.pk),
        status=status,
        status_message=message,
        created_at=task.created_at.isoformat(),
        last_updated_at=updated.isoformat(),
        ttl=task.ttl_ms,
        poll_interval=POLL_MS,
    )


async def _find_task(ctx: ServerRequestContext, task_id: str) -> McpTask:
    try:
        return await in_db(questions.find_task)(token_of(ctx), task_id)
    except questions.NotFoundError as missing:
        raise MCPError(code=INVALID_PARAMS, message=str(missing)) from None


class Tasks(Extension):
    """MCP tasks for the asking tools: get, result (held until answered), list, cancel."""

    identifier = TASKS

    def settings(self) -> dict[str, Any]:
        return {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}

    def methods(self) -> list[MethodBinding]:
        return [
            MethodBinding("tasks/get", GetTaskRequestParams, self.get),
            MethodBinding("tasks/result", GetTaskPayloadRequestParams, self.result),
            MethodBinding("tasks/list", PaginatedRequestParams, self.list),
            MethodBinding("tasks/cancel", CancelTaskRequestParams, self.cancel),
        ]

    async def get(self, ctx: ServerRequestContext, params: GetTaskRequestParams) -> GetTaskResult:
        task = await _find_task(ctx, params.task_id)
        return GetTaskResult(**_task(task).model_dump())

    async def result(
        self, ctx: ServerRequestContext, params: GetTaskPayloadRequestParams
    ) -> CallToolResult:
        """Return the task's tool result, holding the call until the person answers."""
        task = await _find_task(ctx, params.task_id)
        token = token_of(ctx)

        async def settled():
            found = await in_db(questions.find_part)(token, task.part_id)
            return None if found.is_pending else found

        part = task.part
        while part.is_pending:
            part = await wait_in_group(part_group(part.pk), settled, PROGRESS_SECONDS) or part
        result = _answered(part)
        result.meta = {**(result.meta or {}), f"{TASKS}/related-task": {"taskId": str(task.pk)}}
        return result

    async def list(self, ctx: ServerRequestContext, params: PaginatedRequestParams):
        tasks = await in_db(questions.tasks_of)(token_of(ctx))
        return ListTasksResult(tasks=[_task(task) for task in tasks])

    async def cancel(
        self, ctx: ServerRequestContext, params: CancelTaskRequestParams
    ) -> CancelTaskResult:
        try:
            task = await in_db(questions.cancel_task)(token_of(ctx), params.task_id)
        except questions.NotFoundError as missing:
            raise MCPError(code=INVALID_PARAMS, message=str(missing)) from None
        return CancelTaskResult(**_task(task).model_dump())


mcp = MCPServer(
    "elicitation-playground",
    title="Elicitation playground",
    instructions=(
        "Ask a person a typed question (request_input) or for approval (request_approval) and "
        "get their answer as data. A call waits for the answer; list_waiting shows what waits."
    ),
    extensions=[Tasks()],
    middleware=[TasksMiddleware()],
)
ASKS = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=True)
mcp.add_tool(request_input, annotations=ASKS)
mcp.add_tool(request_approval, annotations=ASKS)
mcp.add_tool(list_waiting, annotations=ToolAnnotations(read_only_hint=True))

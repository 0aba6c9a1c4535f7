"""MCP tasks for the asking tools, kept in the database: a task-augmented `tools/call` returns a
task at once, and `tasks/get`, `tasks/result` (held until the person answers), `tasks/list` and
`tasks/cancel` serve it, as the `io.modelcontextprotocol/tasks` extension. A task holds nothing
while it waits, and survives a restart: it is a row, read at each poll.
"""

from collections.abc import Mapping
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
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
)

from elicitation.database_hop import in_db
from playground.mcp_server import questions
from playground.mcp_server.models import McpTask
from playground.mcp_server.tools import (
    PROGRESS_SECONDS,
    TaskCall,
    answered,
    settled_within,
    task_call,
    token_of,
)

TASKS = "io.modelcontextprotocol/tasks"
POLL_MS = 2000
ASKING_TOOLS = {"request_input", "request_approval"}
TASKS_CAPABILITY = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}


class TasksMiddleware:
    """A `tools/call` with `task`: ask, and return the question's task at once (no wait); and
    the handshake's result, with the tasks capability declared.

    A server middleware, not the extension's `intercept_tool_call`: on handshake-era versions
    the SDK sieves what the tool-call handler returns to a `CallToolResult`, which would drop
    the task; a middleware's result goes out as it is.
    """

    async def __call__(self, ctx: ServerRequestContext, call_next: CallNext) -> HandlerResult:
        params = ctx.params if isinstance(ctx.params, Mapping) else {}
        task = params.get("task")
        if ctx.method == "initialize":
            return _declaring_tasks(await call_next(ctx))
        asks = ctx.method == "tools/call" and params.get("name") in ASKING_TOOLS
        if not asks or not isinstance(task, Mapping):
            return await call_next(ctx)
        asked = TaskCall()
        reset = task_call.set(asked)
        try:
            result = await call_next(ctx)
        finally:
            task_call.reset(reset)
        if asked.part is None:
            return result  # refused before anything was asked: the tool's error
        ttl = task.get("ttl") if isinstance(task.get("ttl"), int) else None
        made = await in_db(questions.task_for)(token_of(ctx), asked.part, ttl)
        created = CreateTaskResult(task=_task(made))
        return created.model_dump(by_alias=True, mode="json", exclude_none=True)


def _declaring_tasks(result: HandlerResult) -> HandlerResult:
    """The handshake's result, declaring tasks where a handshake-era client reads them
    (`capabilities.tasks`; the SDK advertises the extension only where the revision has
    `extensions`)."""
    if isinstance(result, dict) and isinstance(result.get("capabilities"), dict):
        result["capabilities"]["tasks"] = TASKS_CAPABILITY
    return result


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
        return TASKS_CAPABILITY

    def methods(self) -> list[MethodBinding]:
        return [
            MethodBinding("tasks/get", GetTaskRequestParams, self.get_task),
            MethodBinding("tasks/result", GetTaskPayloadRequestParams, self.task_result),
            MethodBinding("tasks/list", PaginatedRequestParams, self.list_tasks),
            MethodBinding("tasks/cancel", CancelTaskRequestParams, self.cancel_task),
        ]

    async def get_task(
        self, ctx: ServerRequestContext, params: GetTaskRequestParams
    ) -> GetTaskResult:
        task = await _find_task(ctx, params.task_id)
        return GetTaskResult(**_task(task).model_dump())

    async def task_result(
        self, ctx: ServerRequestContext, params: GetTaskPayloadRequestParams
    ) -> CallToolResult:
        """Return the task's tool result, holding the call until the person answers."""
        task = await _find_task(ctx, params.task_id)
        part = task.part
        while part.is_pending:
            part = await settled_within(token_of(ctx), part, PROGRESS_SECONDS)
        result = answered(part)
        result.meta = {**(result.meta or {}), f"{TASKS}/related-task": {"taskId": str(task.pk)}}
        return result

    async def list_tasks(self, ctx: ServerRequestContext, params: PaginatedRequestParams):
        tasks = await in_db(questions.tasks_of)(token_of(ctx))
        return ListTasksResult(tasks=[_task(task) for task in tasks])

    async def cancel_task(
        self, ctx: ServerRequestContext, params: CancelTaskRequestParams
    ) -> CancelTaskResult:
        try:
            task = await in_db(questions.cancel_task)(token_of(ctx), params.task_id)
        except questions.NotFoundError as missing:
            raise MCPError(code=INVALID_PARAMS, message=str(missing)) from None
        return CancelTaskResult(**_task(task).model_dump())

"""What the MCP tools do in the database, each a plain function run through `in_db`.

Every question goes through the HTTP API's one path (`playground.api.external.ask`: a kind, a Part,
`settle_part`, the chip, the push), in a conversation of the external agent named after the
MCP client, so it shows, routes, notifies and is reviewed like any other.
"""

from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.utils import timezone

from elicitation.kinds import approval
from elicitation.models import Part
from playground.api import external
from playground.api.models import ApiToken
from playground.mcp_server.models import McpTask
from playground.runs.models import Conversation

DESCRIPTION = "An MCP client, over /mcp."


class NotFoundError(Exception):
    """Nothing with this id that the token can see (someone else's is the same as none)."""


class RefusedError(Exception):
    """The call cannot be asked as it is; the message says why and what to do."""


def conversation_for(token: ApiToken, client: str, conversation: int | str | None) -> Conversation:
    """Return the conversation a call names: by id among the token owner's, or by title the
    owner's newest one with this client (opened if there is none; no title: untitled)."""
    if isinstance(conversation, int):
        found = external.conversations_of(token).filter(pk=conversation).first()
        if found is None:
            raise NotFoundError(f"There is no conversation {conversation} your token can see.")
        return found
    title = (conversation or "").strip()[:200]
    newest = (
        external.conversations_of(token)
        .filter(agent__name=client, title=title)
        .order_by("-created_at", "-pk")
        .first()
    )
    return newest or external.open_conversation(token, client, title, DESCRIPTION)


def ask(
    token: ApiToken,
    client: str,
    body: dict,
    *,
    conversation: int | str | None = None,
    idempotency_key: str = "",
    requires_other: bool = False,
) -> Part:
    """Ask a question from an MCP call, once: the same idempotency key, or without one the
    same question still waiting in the same conversation, returns the part already asked."""
    chat = conversation_for(token, client, conversation)
    if not idempotency_key:
        payload = {"message": body["message"], "requestedSchema": body["requestedSchema"]}
        if body.get("details"):
            payload["details"] = body["details"]
        waiting = chat.parts.filter(state=Part.State.PENDING, payload=payload)
        same = waiting.filter(render_kind=body.get("kind") or "elicitation").first()
        if same is not None:
            return same
    try:
        asked = external.ask(token, chat, body, idempotency_key, requires_other=requires_other)
    except external.KeyReusedError as reused:
        raise RefusedError(str(reused)) from None
    return asked.part


def approval_body(action: str, details: dict | None, approver_group: str | None) -> dict:
    """Return the question an approval asks: the approval card, listing `details`."""
    return {
        "kind": approval.KIND.name,
        "message": action,
        "requestedSchema": approval.SCHEMA,
        "details": details or None,
        "intent": "tool_permission",
        "assignees": [f"group:{approver_group}"] if approver_group else None,
    }


def parts_of(token: ApiToken) -> QuerySet[Part]:
    """Return the questions in the token owner's conversations with outside agents."""
    return Part.objects.filter(conversation__in=external.conversations_of(token))


def find_part(token: ApiToken, part_id: int) -> Part:
    found = parts_of(token).filter(pk=part_id).first()
    if found is None:
        raise NotFoundError(f"There is no request {part_id} your token can see.")
    return found


def waiting(token: ApiToken) -> list[Part]:
    """Return the owner's questions still waiting for an answer, oldest first."""
    pending = parts_of(token).filter(state=Part.State.PENDING)
    return list(pending.select_related("conversation").order_by("created_at", "pk")[:200])


def task_for(token: ApiToken, part: Part, ttl_ms: int | None) -> McpTask:
    """Return the task of a question (made at its first task-augmented call)."""
    task, _ = McpTask.objects.get_or_create(part=part, defaults={"token": token, "ttl_ms": ttl_ms})
    task.part = part
    return task


def find_task(token: ApiToken, task_id: str) -> McpTask:
    tasks = McpTask.objects.owned_by(token.owner).select_related("part__conversation")
    try:
        found = tasks.filter(pk=task_id).first()
    except ValidationError:  # not a task id at all
        found = None
    if found is None:
        raise NotFoundError(f"There is no task {task_id[:80]} your token can see.")
    return found


def tasks_of(token: ApiToken) -> list[McpTask]:
    tasks = McpTask.objects.owned_by(token.owner).select_related("part__conversation")
    return list(tasks[:200])


def cancel_task(token: ApiToken, task_id: str) -> McpTask:
    """Cancel a task's question (every open tab shows it cancelled); a settled one stays."""
    task = find_task(token, task_id)
    if external.cancel(task.part):
        McpTask.objects.filter(pk=task.pk).update(cancelled_at=timezone.now())
    task.refresh_from_db()
    task.part.refresh_from_db()
    return task

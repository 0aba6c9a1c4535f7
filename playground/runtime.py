"""The durable agent runtime: run a turn, stop at an unanswered question, replay after it.

A run holds nothing while it waits: reaching a pending question raises `Suspended`, the turn
is marked `waiting` and the coroutine ends. When the question settles the turn is enqueued
again and replays from its start. Every call the agent makes gets an index within the turn;
on replay a recorded message is not sent again, a recorded step returns its result and a
settled question returns its envelope, so the agent continues past the answer.
"""

import asyncio
import hashlib
import inspect
import json
import logging
import traceback
import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from elicitation import contract
from elicitation.kinds import NOT_HANDLED, kind_for
from elicitation.models import Part
from playground import fragments
from playground.agents import get_agent_spec
from playground.models import Message, Step, Turn
from playground.push import push_html, push_html_soon

logger = logging.getLogger(__name__)

HEARTBEAT_SECONDS = settings.RUN_HEARTBEAT_SECONDS
# A running turn whose heartbeat is older than this has lost its worker.
STALE_AFTER = timedelta(seconds=settings.RUN_STALE_AFTER_SECONDS)

DEFAULT_ACTIONS = ["accept", "decline", "cancel"]
APPROVAL_SCHEMA = {
    "type": "object",
    "properties": {
        "scope": {
            "type": "string",
            "title": "Approve",
            "oneOf": [
                {"const": "once", "title": "Just this once"},
                {"const": "conversation", "title": "For the rest of this conversation"},
            ],
            "default": "once",
        }
    },
}


class Suspended(BaseException):
    """Raised inside a run that reached a question with no answer yet.

    A BaseException, so an agent's `except Exception` cannot swallow it.
    """


class ReplayDivergedError(Exception):
    """On replay the agent made a different call than the one recorded at the same index."""


class UnsupportedRenderableError(Exception):
    """The client of this turn cannot show a form, and the request does not allow prose."""


@dataclass(frozen=True)
class Response:
    """What the person answered: accept / decline / cancel / respond, or error / not_handled."""

    action: str
    content: dict = field(default_factory=dict)
    text: str = ""
    envelope: dict | str = field(default_factory=dict)

    @property
    def accepted(self) -> bool:
        return self.action == "accept"

    @classmethod
    def from_part(cls, part: Part) -> "Response":
        if part.state == Part.State.DEGRADED:
            if part.response == NOT_HANDLED:
                return cls(action="not_handled", text=NOT_HANDLED["message"], envelope=NOT_HANDLED)
            error = contract.degradation_error(part.degraded_reason)
            return cls(action="error", text=error, envelope=error)
        envelope = part.response or {}
        return cls(
            action=envelope.get("action", ""),
            content=envelope.get("content") or {},
            text=envelope.get("text", ""),
            envelope=envelope,
        )


class TurnContext:
    """What an agent gets for one turn: the person's message and the calls it can make."""

    def __init__(self, turn: Turn):
        self.turn = turn
        self.conversation = turn.conversation
        self.agent = turn.conversation.agent
        self.user = turn.conversation.owner
        self.message = turn.text
        self._calls = 0

    @property
    def config(self) -> dict:
        """Return the agent's configuration (set up in the onboarding wizard)."""
        return self.agent.config or {}

    def _next_call(self) -> int:
        index = self._calls
        self._calls += 1
        return index

    async def say(self, text: str) -> None:
        """Send an agent message (markdown). On replay an already-sent message is not resent."""
        await self._emit(Message.Role.AGENT, text)

    async def _emit(self, role: str, text: str) -> None:
        index = self._next_call()
        message, created = await Message.objects.aget_or_create(
            turn=self.turn, call_index=index, defaults={"role": role, "text": str(text)}
        )
        if created:
            await _push(self.conversation.pk, fragments.render_message, message)

    async def step(self, name: str, fn, *args: Any) -> Any:
        """Run a side-effecting step once per turn and record its JSON result for replays."""
        index = self._next_call()
        recorded = await Step.objects.filter(turn=self.turn, call_index=index).afirst()
        if recorded is not None:
            return recorded.result
        if inspect.iscoroutinefunction(fn):
            result = await fn(*args)
        else:
            # Off the event loop: a slow call must not stall every other conversation.
            result = await sync_to_async(fn, thread_sensitive=False)(*args)
        result = json.loads(json.dumps(result))  # what a replay returns, exactly
        try:
            await Step.objects.acreate(turn=self.turn, call_index=index, name=name, result=result)
        except IntegrityError:
            # Another run of this turn recorded it first: its record is the truth.
            recorded = await Step.objects.aget(turn=self.turn, call_index=index)
            return recorded.result
        return result

    async def elicit(
        self,
        message: str,
        schema: dict,
        *,
        value: dict | None = None,
        allowed_actions: list[str] | None = None,
        intent: str | None = None,
        id: str | None = None,
    ) -> Response:
        """Ask the person a typed question (a `request_input` form) and return the answer."""
        return await self.render(
            kind="elicitation",
            message=message,
            data_schema=schema,
            value=value,
            allowed_actions=allowed_actions,
            intent=intent,
            id=id,
        )

    async def confirm(
        self, message: str, *, details: dict | None = None, action: str | None = None
    ) -> bool:
        """Ask for approval before an irreversible action; return True when approved.

        An approval granted "for this conversation" holds for the same action (same `action`
        name and same `details`) for the rest of the conversation, across turns.
        """
        key = _approval_key(action or message, details)
        index = self._calls
        answered_here = await Part.objects.filter(turn=self.turn, call_index=index).aexists()
        if not answered_here and await _approved_for_conversation(self.conversation.pk, key):
            self._next_call()
            return True
        response = await self.render(
            kind="elicitation",
            message=message,
            data_schema=APPROVAL_SCHEMA,
            intent="tool_permission",
            details=details,
            approval_key=key,
        )
        return response.accepted

    async def render(
        self,
        *,
        kind: str = "",
        message: str = "",
        data_schema: dict | None = None,
        value: Any = None,
        allowed_actions: list[str] | None = None,
        intent: str | None = None,
        id: str | None = None,
        tool_name: str = "",
        approval_key: str = "",
        details: dict | None = None,
    ) -> Response:
        """Show an interaction of a registered kind and return the person's response."""
        index = self._next_call()
        part = await Part.objects.filter(turn=self.turn, call_index=index).afirst()
        if part is None:
            actions = list(allowed_actions or DEFAULT_ACTIONS)
            if "cancel" not in actions:
                actions.append("cancel")  # the person can always walk away
            if self.turn.surface == Turn.Surface.TEXT and "respond" not in actions:
                raise UnsupportedRenderableError(
                    "This client shows text only and cannot show a form; "
                    'allow the "respond" action to accept a prose reply.'
                )
            if kind == "display":
                payload = {"message": message, **(value or {})}
            else:
                payload = {"message": message, "requestedSchema": data_schema}
            if details:
                payload["details"] = details  # what an approval card lists
            part = await self._create_part(
                index, kind, tool_name, payload, value, actions, intent or "", id, approval_key
            )
        elif (part.payload or {}).get("message") != message:
            raise ReplayDivergedError(
                f"On replay, call {index} of this turn asked {message!r}, but the recorded "
                f"question was {part.message!r}. Given the same answers an agent must make the "
                "same calls in the same order: put anything random or external in ctx.step()."
            )
        if part.state == Part.State.PENDING:
            raise Suspended(part.pk)
        if part.resumed_at is None and part.settled_at is not None:
            await Part.objects.filter(pk=part.pk).aupdate(resumed_at=timezone.now())
        return Response.from_part(part)

    async def _create_part(
        self, index, kind_name, tool_name, payload, value, actions, intent, call_id, approval_key
    ) -> Part:
        kind = kind_for(kind_name, tool_name)
        now = timezone.now()
        part = Part(
            conversation=self.conversation,
            turn=self.turn,
            call_index=index,
            tool_call_id=call_id or f"call_{self.turn.pk}_{index}",
            tool_name=tool_name or (kind.tool_name if kind else kind_name),
            render_kind=kind.name if kind else kind_name,
            payload=payload,
            value=value,
            allowed_actions=actions,
            intent=intent,
            approval_key=approval_key,
        )
        if kind is None:
            part.state, part.response, part.settled_at = Part.State.DEGRADED, NOT_HANDLED, now
            part.degraded_reason = f'no interaction kind "{kind_name or tool_name}" in this client'
        else:
            part.normalized, reason = kind.parse(payload, value)
            if reason:
                part.state, part.degraded_reason, part.settled_at = Part.State.DEGRADED, reason, now
            elif kind.settles_immediately:
                part.state, part.settled_at = Part.State.SUBMITTED, now
                part.response = contract.accept({})
        try:
            await part.asave()
        except IntegrityError:
            return await Part.objects.aget(turn=self.turn, call_index=index)
        await _push(self.conversation.pk, fragments.render_new_part, part)
        await Part.objects.filter(pk=part.pk).aupdate(pushed_at=timezone.now())
        return part


def _approval_key(action: str, details: dict | None) -> str:
    identity = json.dumps([action, details or {}], sort_keys=True, default=str)
    return hashlib.sha256(identity.encode()).hexdigest()


async def _approved_for_conversation(conversation_id: int, key: str) -> bool:
    approvals = Part.objects.filter(
        conversation_id=conversation_id,
        approval_key=key,
        intent="tool_permission",
        state=Part.State.SUBMITTED,
    ).values_list("response", flat=True)
    scopes = [(response.get("content") or {}).get("scope") async for response in approvals]
    return "conversation" in scopes


async def _push(conversation_id: int, render, obj) -> None:
    html = await sync_to_async(render)(obj)
    await push_html(conversation_id, html)


# --- running a turn ---------------------------------------------------------------------


async def execute_turn(turn_id: int) -> None:
    """Run a queued turn until it is done, failed or waiting for the person."""
    token = uuid.uuid4().hex
    claimed = await Turn.objects.filter(pk=turn_id, status=Turn.Status.QUEUED).aupdate(
        status=Turn.Status.RUNNING,
        run_token=token,
        heartbeat_at=timezone.now(),
        resume_requested=False,
    )
    if not claimed:
        return  # already running elsewhere, or finished
    await _push_status(turn_id)
    heartbeat = asyncio.create_task(_heartbeat(turn_id, token))
    try:
        while await _replay(turn_id, token) == "waiting":
            if await sync_to_async(_park)(turn_id, token):
                break
    finally:
        heartbeat.cancel()
    await _push_status(turn_id)


async def _replay(turn_id: int, token: str) -> str:
    turn = await Turn.objects.select_related("conversation__agent", "conversation__owner").aget(
        pk=turn_id
    )
    ctx = TurnContext(turn)
    try:
        spec = get_agent_spec(turn.conversation.agent.kind)
        await spec.run(ctx, turn.text)
    except Suspended:
        return "waiting"
    except Exception as error:
        logger.exception("agent run failed (turn %s)", turn_id)
        summary = f"The agent stopped with an error: {type(error).__name__}: {error}"[:500]
        await Turn.objects.filter(pk=turn_id, run_token=token).aupdate(
            status=Turn.Status.FAILED, error=summary, error_trace=traceback.format_exc()
        )
        await ctx._emit(Message.Role.ERROR, summary)
        return "failed"
    await Turn.objects.filter(pk=turn_id, run_token=token).aupdate(status=Turn.Status.DONE)
    return "done"


def _park(turn_id: int, token: str) -> bool:
    """Mark the turn waiting; return False if an answer came in meanwhile (replay again)."""
    with transaction.atomic():
        turn = Turn.objects.select_for_update().get(pk=turn_id)
        if turn.run_token != token:
            return True  # another worker took the turn over
        if turn.resume_requested:
            turn.resume_requested = False
            turn.save(update_fields=["resume_requested", "updated_at"])
            return False
        turn.status = Turn.Status.WAITING
        turn.save(update_fields=["status", "updated_at"])
        return True


async def _heartbeat(turn_id: int, token: str) -> None:
    while True:
        await asyncio.sleep(HEARTBEAT_SECONDS)
        await Turn.objects.filter(pk=turn_id, run_token=token).aupdate(heartbeat_at=timezone.now())


async def _push_status(turn_id: int) -> None:
    turn = await Turn.objects.select_related("conversation").aget(pk=turn_id)
    await _push(turn.conversation_id, fragments.render_turn_status, turn)


def request_resume(turn_id: int) -> None:
    """Wake a turn after one of its questions settled: enqueue it, or flag the running run."""
    from playground.tasks import run_turn

    with transaction.atomic():
        turn = Turn.objects.select_for_update().get(pk=turn_id)
        if turn.status == Turn.Status.WAITING:
            turn.status = Turn.Status.QUEUED
            turn.save(update_fields=["status", "updated_at"])
            transaction.on_commit(lambda: run_turn.enqueue(turn_id))
        elif turn.status in (Turn.Status.QUEUED, Turn.Status.RUNNING):
            turn.resume_requested = True
            turn.save(update_fields=["resume_requested", "updated_at"])


def recover_stale_turns(*, stale_after: timedelta = STALE_AFTER, include_queued=False) -> list:
    """Enqueue again the turns whose worker died mid-run; return their ids."""
    from playground.tasks import run_turn

    cutoff = timezone.now() - stale_after
    recovered = []
    stale = Turn.objects.filter(status=Turn.Status.RUNNING, heartbeat_at__lt=cutoff)
    for turn_id in stale.values_list("pk", flat=True):
        if stale.filter(pk=turn_id).update(status=Turn.Status.QUEUED, run_token=""):
            recovered.append(turn_id)
    if include_queued:
        queued = Turn.objects.filter(status=Turn.Status.QUEUED).exclude(pk__in=recovered)
        recovered += queued.values_list("pk", flat=True)
    for turn_id in recovered:
        run_turn.enqueue(int(turn_id))
    if recovered:
        logger.info("picked up %d interrupted turn(s): %s", len(recovered), recovered)
    return recovered


async def recover_turns_at_startup() -> None:
    """In the embedded default the server is the only worker: every unfinished run is ours."""
    from django.conf import settings

    if settings.TASK_BACKEND == "inprocess":
        await sync_to_async(recover_stale_turns)(stale_after=timedelta(0), include_queued=True)


def on_part_settled(sender, part_id: int, **kwargs) -> None:
    """Show the settled part in every open tab and wake its run."""
    part = Part.objects.get(pk=part_id)
    push_html_soon(part.conversation_id, fragments.render_part(part))
    request_resume(part.turn_id)

"""The agent's side of a turn: the calls it makes (`TurnContext`) and the rules of replay.

A run holds nothing while it waits: reaching a pending question raises `Suspended`, the turn
is marked `waiting` and the coroutine ends (see `tasks`). When the question settles the turn is
queued again and replays from its start. Every call the agent makes gets an index within the turn;
on replay a recorded message is not sent again, a recorded step returns its result and a
settled question returns its envelope, so the agent continues past the answer.
"""

import hashlib
import inspect
import json
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import sync_to_async
from django.db import IntegrityError
from django.utils import timezone

from elicitation import contract
from elicitation.kinds import NOT_HANDLED, approval, kind_for
from elicitation.models import Part
from playground import fragments
from playground.models import Agent, Message, Step, Turn
from playground.push import push_html

DEFAULT_ACTIONS = ["accept", "decline", "cancel"]


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


@dataclass
class Recorded:
    """What a turn recorded before this replay, read in one go: a replay makes no query per
    call it passes."""

    parts: dict[int, Part]
    messages: set[int]
    steps: dict[int, Any]

    @classmethod
    def read(cls, turn: Turn) -> "Recorded":
        """Read the turn's records; the answered parts the run is about to continue past are
        marked resumed now (synchronous: the caller is off the event loop)."""
        parts = {part.call_index: part for part in Part.objects.filter(turn=turn).order_by()}
        resumed = [part for part in parts.values() if part.settled_at and not part.resumed_at]
        if resumed:
            now = timezone.now()
            Part.objects.filter(pk__in=[part.pk for part in resumed]).update(resumed_at=now)
            for part in resumed:
                part.resumed_at = now
        # No ordering: a message's or step's default one joins the turn table.
        return cls(
            parts=parts,
            messages=set(turn.messages.order_by().values_list("call_index", flat=True)),
            steps=dict(turn.steps.order_by().values_list("call_index", "result")),
        )


class TurnContext:
    """What an agent gets for one turn: the person's message and the calls it can make."""

    def __init__(self, turn: Turn, recorded: Recorded):
        self.turn = turn
        self.conversation = turn.conversation
        self.agent = turn.conversation.agent
        self.user = turn.conversation.owner
        self.message = turn.text
        self._calls = 0
        self._recorded = recorded

    @property
    def config(self) -> dict:
        """Return the agent's configuration (set up in the onboarding wizard)."""
        return self.agent.config or {}

    def _next_call(self) -> int:
        index = self._calls
        self._calls += 1
        return index

    @property
    def call_index(self) -> int:
        """Return the index the agent's next call will get within the turn."""
        return self._calls

    def skip_to(self, index: int) -> None:
        """Continue numbering calls at `index`: after a recorded step that made calls of its
        own while it ran (questions, notes), a replay skips past them to number the same."""
        self._calls = max(self._calls, index)

    async def say(self, text: str) -> None:
        """Send an agent message (markdown). On replay an already-sent message is not resent."""
        await self._emit(Message.Role.AGENT, text)

    async def refresh_header(self) -> None:
        """Show the conversation's agent afresh in every open tab (the wizard created it)."""
        agent = await Agent.objects.aget(pk=self.agent.pk)
        await push_html(self.conversation.pk, await sync_to_async(fragments.render_header)(agent))

    async def note(self, text: str) -> None:
        """Add a note about the run (shown apart from the agent's own words)."""
        await self._emit(Message.Role.NOTE, text)

    async def report_error(self, text: str) -> None:
        """Show the person that the run stopped (the runner calls this, not agents)."""
        await self._emit(Message.Role.ERROR, text)

    async def _emit(self, role: str, text: str) -> None:
        index = self._next_call()
        if index in self._recorded.messages:
            return  # said before this replay
        html = await sync_to_async(_save_and_render_message)(self.turn, index, role, str(text))
        if html is not None:
            await push_html(self.conversation.pk, html)

    async def step(self, name: str, fn, *args: Any) -> Any:
        """Run a side-effecting step once per turn and record its JSON result for replays."""
        index = self._next_call()
        if index in self._recorded.steps:
            return self._recorded.steps[index]
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
        answered_here = index in self._recorded.parts
        if not answered_here and await _approved_for_conversation(self.conversation.pk, key):
            # Say why nothing is asked (a note takes this call's place, so replays agree).
            await self._emit(Message.Role.NOTE, f"Approved earlier in this conversation: {message}")
            return True
        response = await self.render(
            kind="approval",
            message=message,
            data_schema=approval.SCHEMA,
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
        validator: str = "",
    ) -> Response:
        """Show an interaction of a registered kind and return the person's response.

        `details` are read-only facts the card lists; `validator` names a config card's
        whole-configuration validator (registered by the app that asks).
        """
        index = self._next_call()
        part = self._recorded.parts.get(index)
        if part is None:
            actions = offered_actions(allowed_actions)
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
                payload["details"] = details  # what an approval or config card lists
            if validator:
                payload["validator"] = validator
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
        part = build_part(
            turn=self.turn,
            call_index=index,
            kind_name=kind_name,
            tool_name=tool_name,
            payload=payload,
            value=value,
            allowed_actions=actions,
            intent=intent,
            tool_call_id=call_id or f"call_{self.turn.pk}_{index}",
            approval_key=approval_key,
        )
        html = await sync_to_async(_save_and_render)(part)
        if html is None:
            return await Part.objects.aget(turn=self.turn, call_index=index)
        await push_html(self.conversation.pk, html)
        return part


def _save_and_render(part: Part) -> str | None:
    """Insert a new part and return its fragment, in one hop off the event loop; return None
    if another run of the turn saved it first.

    A saved part is in the chat (a page load or a reconnecting tab shows it), so `pushed_at`
    goes in the INSERT: no second write after the push, which is best effort anyway.
    """
    part.pushed_at = timezone.now()
    try:
        part.save()
    except IntegrityError:
        return None
    return fragments.render_new_part(part)


def _save_and_render_message(turn: Turn, index: int, role: str, text: str) -> str | None:
    """Save a message of the turn and return its fragment, in one hop off the event loop;
    return None if another run of the turn said it first."""
    try:
        message = Message.objects.create(turn=turn, call_index=index, role=role, text=text)
    except IntegrityError:
        return None
    return fragments.render_message(message)


def offered_actions(allowed_actions: list[str] | None) -> list[str]:
    """Return the actions a question offers: the ones asked for (default: accept, decline,
    cancel), and cancel always, so the person can always walk away."""
    actions = list(allowed_actions or DEFAULT_ACTIONS)
    if "cancel" not in actions:
        actions.append("cancel")
    return actions


def build_part(
    *,
    turn: Turn,
    call_index: int,
    kind_name: str,
    payload: dict,
    allowed_actions: list[str],
    tool_call_id: str,
    tool_name: str = "",
    value: Any = None,
    intent: str = "",
    approval_key: str = "",
) -> Part:
    """Return a new, unsaved part of `turn`: pending, degraded with its reason, or settled at
    once (display cards, and kinds this client does not handle). Every source asks this way.
    """
    kind = kind_for(kind_name, tool_name)
    now = timezone.now()
    part = Part(
        conversation=turn.conversation,
        turn=turn,
        call_index=call_index,
        tool_call_id=tool_call_id,
        tool_name=tool_name or (kind.tool_name if kind else kind_name),
        render_kind=kind.name if kind else kind_name,
        payload=payload,
        value=value,
        allowed_actions=allowed_actions,
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
    return part


def _approval_key(action: str, details: dict | None) -> str:
    identity = json.dumps([action, details or {}], sort_keys=True, default=str)
    return hashlib.sha256(identity.encode()).hexdigest()


async def _approved_for_conversation(conversation_id: int, key: str) -> bool:
    approvals = Part.objects.filter(
        conversation_id=conversation_id,
        approval_key=key,
        render_kind=approval.KIND.name,
        state=Part.State.SUBMITTED,
    ).values_list("response", flat=True)
    scopes = [(response.get("content") or {}).get("scope") async for response in approvals]
    return "conversation" in scopes

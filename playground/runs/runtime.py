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
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from asgiref.sync import sync_to_async
from django.db import IntegrityError, close_old_connections
from django.utils import timezone

from elicitation import contract
from elicitation.kinds import NOT_HANDLED, approval, kind_for
from elicitation.models import AnswerFile, Part
from elicitation.uploads import is_file_id, open_bytes
from playground.chat import fragments
from playground.chat.push import push_html
from playground.connections import services
from playground.connections.models import Credential, latest, latest_connection, use
from playground.inbox import live, routing
from playground.runs import steps
from playground.runs.models import Message, Step, Turn

DEFAULT_ACTIONS = ["accept", "decline", "cancel"]

logger = logging.getLogger(__name__)


class Suspended(BaseException):
    """Raised inside a run that reached a question with no answer yet.

    A BaseException, so an agent's `except Exception` cannot swallow it.
    """

    # What a step the run let go of reads in the chat; a replay runs the step again.
    step_outcome = "Paused for an answer: it runs again once you have answered."


class ReplayDivergedError(Exception):
    """On replay the agent made a different call than the one recorded at the same index."""


class ExplainedFault(Exception):
    """The run failed in a way its message explains to the person (a model provider that is
    down, say). The chat shows the message as it is; the log gets one line; the admin's turn
    page keeps the whole trace, with the notes (`add_note`) meant for staff only: `address`,
    where the agent or service at fault is, is one (never in the message)."""

    def __init__(self, message: str, *, address: str = "") -> None:
        super().__init__(message)
        if address:
            self.add_note(address_note(address))


def address_note(address: str) -> str:
    """Return the staff-only note naming where an agent or service is (a URL, a command)."""
    return f"Address: {address}"


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


@dataclass(frozen=True)
class AttachedFile:
    """A file a person attached to an answer, read through its reference (`ctx.open_file`)."""

    name: str
    type: str
    size: int
    sha256: str
    content: bytes = field(repr=False)


@dataclass
class Recorded:
    """What a turn recorded before this replay, read in one go: a replay makes no query per
    call it passes."""

    parts: dict[int, Part]
    messages: set[int]
    steps: dict[int, Any]
    # Steps an earlier run started and did not record a result of: run again, same record.
    unfinished: set[int] = field(default_factory=set)
    # The name of every step started, recorded or not.
    step_names: dict[int, str] = field(default_factory=dict)

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
        rows = list(turn.steps.order_by().values_list("call_index", "status", "result", "name"))
        recorded = {row[0] for row in rows if row[1] in Step.RECORDED}
        return cls(
            parts=parts,
            messages=set(turn.messages.order_by().values_list("call_index", flat=True)),
            steps={index: result for index, _, result, _ in rows if index in recorded},
            unfinished={row[0] for row in rows} - recorded,
            step_names={index: name for index, _, _, name in rows},
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
        # Degraded parts of this turn with no question shown after them (yet).
        self._uncorrected: list[Part] = []

    @property
    def config(self) -> dict:
        """Return the agent's configuration (set up in the onboarding wizard)."""
        return self.agent.config or {}

    def _default_ask(self, what: str) -> list[str] | None:
        """Return who the agent's configuration routes its questions or approvals to, e.g.
        `{"routing": {"approvals": ["group:release-managers"]}}`."""
        routing = self.config.get("routing")
        return routing.get(what) if isinstance(routing, dict) else None

    def _next_call(self) -> int:
        index = self._calls
        self._calls += 1
        return index

    @property
    def call_index(self) -> int:
        """Return the index the agent's next call will get within the turn."""
        return self._calls

    def started_step(self, index: int) -> str | None:
        """Return the name of the step a run of this turn started at call `index` before this
        replay, if any (recorded or not)."""
        return self._recorded.step_names.get(index)

    def skip_to(self, index: int) -> None:
        """Continue numbering calls at `index`: after a recorded step that made calls of its
        own while it ran (questions, notes), a replay skips past them to number the same."""
        self._calls = max(self._calls, index)

    def resume_point(self) -> Any | None:
        """Return what a run of this turn kept at the next call (`resume_points_with`), and
        continue numbering calls past those it stands for; None if nothing was kept there."""
        point = self.turn.resume_points.get(str(self._calls))
        if point is None:
            return None
        self.skip_to(point["next_call"])
        return point["value"]

    def resume_points_with(self, start: int, end: int, value: Any) -> dict:
        """Return the turn's resume points with `value` (JSON data) kept for a replay to take
        at call `start` instead of making the calls from `start` to `end` again: what they came
        to (a model's run up to its question), which a replay would otherwise rebuild from
        their records. All must be recorded; the caller saves them as `Turn.resume_points`."""
        return {**self.turn.resume_points, str(start): {"next_call": end, "value": value}}

    def recorded_parts(self, intent: str) -> list[Part]:
        """Return the questions with `intent` an earlier run of this turn asked at or after the
        next call, in order (read with the turn's records: no query). A source that holds a
        question on a live session finds here those a run that died while they waited left."""
        found = [
            part
            for index, part in self._recorded.parts.items()
            if index >= self._calls and part.intent == intent
        ]
        return sorted(found, key=lambda part: part.call_index)

    async def say(self, text: str, *, markdown: bool = True) -> None:
        """Send an agent message (markdown, or shown as the text it is). On replay an
        already-sent message is not resent."""
        await self._emit(Message.Role.AGENT, text, plain=not markdown)

    def say_now(self, text: str) -> str | None:
        """`say`, from a step's `finish` (already off the event loop): save the agent's
        message and return its fragment, pushed with the step's."""
        index = self._next_call()
        if index in self._recorded.messages:
            return None  # said before this replay
        return _save_and_render_message(self.turn, index, Message.Role.AGENT, text, False)

    async def note(self, text: str) -> None:
        """Add a note about the run (shown apart from the agent's own words)."""
        await self._emit(Message.Role.NOTE, text)

    async def report_error(self, text: str, *, address: str = "") -> None:
        """Show the person that the run stopped (the runner calls this), or that a call failed
        without failing the turn (an MCP server's). `address`, where the agent or service at
        fault is, goes only to the admin's turn page, for staff, as an `ExplainedFault`'s."""
        await self._emit(Message.Role.ERROR, text)
        if address:
            note = f"{text}\n{address_note(address)}"
            await Turn.objects.filter(pk=self.turn.pk).aupdate(error_trace=note)

    async def _emit(self, role: str, text: str, *, plain: bool = False) -> None:
        index = self._next_call()
        if index in self._recorded.messages:
            return  # said before this replay
        html = await sync_to_async(_save_and_render_message)(
            self.turn, index, role, str(text), plain
        )
        if html is not None:
            await push_html(self.conversation.pk, html)

    async def step(
        self,
        name: str,
        fn,
        *args: Any,
        arguments: dict | str | None = None,
        describe: steps.Describe | None = None,
        shown: bool = True,
        start: Callable[[], str | None] | None = None,
        finish: Callable[[Any], str | None] | None = None,
    ) -> Any:
        """Run a side-effecting step once per turn and record its JSON result for replays.

        The chat shows it as it runs and how it went: `name`, the `arguments` (default: the
        plain-data ones of `args`, by parameter name), the duration and the outcome (`describe`
        turns the result into a `steps.Outcome`; default: the result in short). `shown=False`
        records bookkeeping without showing it.

        `start` runs in the hop that records the step's start, after it ("Thinking…" stored as
        a model request goes out: one hop, not two); what it returns is pushed with the step,
        and a `Suspended` it raises interrupts the step before it runs.
        `finish` runs with the result in the hop that records it, before it (a streamed reply
        cleared and saved as a message: one hop, not three, between the model's last byte and
        what comes next). What it returns is pushed with the step; a `Suspended` it raises
        interrupts the step as if the step had raised it.
        """
        index = self._next_call()
        if index in self._recorded.steps:
            return self._recorded.steps[index]
        if arguments is None:
            summary = steps.describe_arguments(fn, args)
        else:
            summary = _argument_summary(arguments)
        name = steps.shorten(name, 200)
        unfinished = index in self._recorded.unfinished
        if not shown and start is finish is None and not inspect.iscoroutinefunction(fn):
            # Bookkeeping: run and recorded in one hop and one write, off the shared thread
            # (a hop to start it, one to run it and one to record it took a millisecond or
            # two of a turn's way).
            return await sync_to_async(_run_hidden_step, thread_sensitive=False)(
                self.turn, index, name, summary, unfinished, fn, args, describe
            )
        record, html, suspended = await sync_to_async(_start_step)(
            self.turn, index, name, summary, shown, unfinished, start
        )
        if record.status in Step.RECORDED:
            return record.result  # another run of this turn recorded it first: the truth
        await self._show_step(html)
        if suspended is not None:
            raise suspended
        try:
            if inspect.iscoroutinefunction(fn):
                result = await fn(*args)
            else:
                # Off the event loop: a slow call must not stall every other conversation.
                result = await sync_to_async(fn, thread_sensitive=False)(*args)
            result = json.loads(json.dumps(result))  # what a replay returns, exactly
        except Suspended as suspended:
            await self._end_step(record, Step.Status.INTERRUPTED, suspended.step_outcome)
            raise
        except Exception as error:
            await self._end_step(record, Step.Status.FAILED, steps.error_outcome(error))
            raise
        status, text = _described(record, describe, result)
        recorded = await self._end_step(record, status, text, result=result, finish=finish)
        return result if recorded else (await Step.objects.aget(pk=record.pk)).result

    async def show_step(
        self,
        name: str,
        *,
        arguments: dict | str | None = None,
        outcome: str = "",
        started_at: datetime | None = None,
        finished_at: datetime | None = None,
    ) -> None:
        """Show a step taken outside this run (an AG-UI agent's own tool call or step), display
        only: recorded as it went, once, so a replay shows it and runs nothing for it."""
        index = self._next_call()
        if index in self._recorded.steps:
            return
        record = Step(
            turn=self.turn,
            call_index=index,
            name=steps.shorten(name, 200),
            arguments=_argument_summary(arguments),
            status=Step.Status.DONE,
            outcome=steps.describe_value(outcome or "Done."),
            started_at=started_at,
            finished_at=finished_at,
        )
        await self._show_step(await sync_to_async(_save_shown_step)(record))

    async def _end_step(
        self,
        record: Step,
        status: str,
        outcome: str,
        result: Any = None,
        finish: Callable[[Any], str | None] | None = None,
    ) -> bool:
        """Record how the step went and show it; return False if another run of this turn
        recorded it first (its record is the truth)."""
        _ended(record, status, outcome, result)
        written, html, suspended = await sync_to_async(_finish_step)(record, finish)
        await self._show_step(html)
        if suspended is not None:
            raise suspended
        return written

    async def _show_step(self, html: str | None) -> None:
        if html is not None:
            await push_html(self.conversation.pk, html)

    async def elicit(
        self,
        message: str,
        schema: dict,
        *,
        value: dict | None = None,
        allowed_actions: list[str] | None = None,
        intent: str | None = None,
        id: str | None = None,
        ask: list[str] | None = None,
        escalate_after: float | timedelta | None = None,
        escalate_to: list[str] | None = None,
    ) -> Response:
        """Ask the person a typed question (a `request_input` form) and return the answer.

        `ask` routes it to people and groups as well ("group:release-managers", "user:ada");
        still unanswered `escalate_after` (seconds), it is asked of `escalate_to` too.
        """
        return await self.render(
            kind="elicitation",
            message=message,
            data_schema=schema,
            value=value,
            allowed_actions=allowed_actions,
            intent=intent,
            id=id,
            ask=ask,
            escalate_after=escalate_after,
            escalate_to=escalate_to,
        )

    async def confirm(
        self,
        message: str,
        *,
        details: dict | None = None,
        action: str | None = None,
        ask: list[str] | None = None,
        requires_other: bool = False,
        escalate_after: float | timedelta | None = None,
        escalate_to: list[str] | None = None,
    ) -> bool:
        """Ask for approval before an irreversible action; return True when approved.

        An approval granted "for this conversation" holds for the same action (same `action`
        name and same `details`) for the rest of the conversation, across turns. A routed
        approval (`ask`) is always asked: no earlier grant stands in for the people it names.
        With `requires_other` someone other than the person who started the run must approve.
        """
        key = _approval_key(action or message, details)
        ask = self._default_ask("approvals") if ask is None else ask
        index = self._calls
        answered_here = index in self._recorded.parts
        may_reuse = not ask and not requires_other and not answered_here
        if may_reuse and await _approved_for_conversation(self.conversation.pk, key):
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
            ask=ask,
            requires_other=requires_other,
            escalate_after=escalate_after,
            escalate_to=escalate_to,
        )
        return response.accepted

    async def request_connection(
        self, service: str, *, reason: str | None = None, for_agent: str | None = None
    ) -> Response:
        """Ask the person for a connection to `service` (declared in the services file).

        The card offers their existing connection, if any, and a form that posts the credential
        to the vault; an accepted response's content is a reference only: `{"connection",
        "service", "label"}`. Pass it to `connection()` at the moment of use. `for_agent`
        names the agent the connection is for when it is not this one (the card names it).
        """
        declared = await sync_to_async(services.get)(service)
        message = connection_message(declared, for_agent or self.agent.name, reason)
        value = None
        if self._calls not in self._recorded.parts:  # (a replay shows the recorded card)
            value = await sync_to_async(connection_card)(self.user, declared)
            value["for_agent"] = for_agent or ""
        return await self.render(kind="connection", message=message, value=value)

    async def find_connection(self, service: str) -> str | None:
        """Return the reference of the person's connection to `service`, or None (recorded as a
        step, so a replay decides the same way)."""
        return await self.step(f"connection: {service}", latest, self.user, service, shown=False)

    async def connection(
        self, reference: "str | Response", *, refused: Credential | None = None
    ) -> Credential:
        """Return the credential a reference names, opened now: use it, never record it.

        Pass the credential the service `refused` (HTTP 401) to have an OAuth grant renewed
        now rather than when it runs out. Raise `playground.connections.models.ConnectionGoneError`
        when
        the person revoked it (or it is not theirs: an agent of someone else's conversation can
        never use it).
        """
        if isinstance(reference, Response):
            reference = reference.content.get("connection", "")
        # Off the shared thread: renewing an OAuth grant asks its provider, which may be slow.
        opened = sync_to_async(use, thread_sensitive=False)
        return await opened(self.user, str(reference), refused=refused)

    async def open_file(self, reference: "str | dict") -> AttachedFile:
        """Return a file attached to an answer in this conversation, by its reference (the
        `file` of a file field's answer, or that answer itself).

        Raise FileNotFoundError for anything else: a file of another conversation, or one
        never sent with an answer, is not there for this agent.
        """
        if isinstance(reference, dict):
            reference = reference.get("file", "")

        def read() -> AttachedFile:
            found = AnswerFile.objects.filter(
                pk=reference if is_file_id(reference) else None,
                part__conversation=self.conversation,
                claimed_at__isnull=False,
            ).first()
            if found is None:
                raise FileNotFoundError(f"No file {reference!r} was attached in this conversation.")
            return AttachedFile(
                found.name, found.content_type, found.size, found.sha256, open_bytes(found)
            )

        return await sync_to_async(read)()

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
        ask: list[str] | None = None,
        requires_other: bool = False,
        escalate_after: float | timedelta | None = None,
        escalate_to: list[str] | None = None,
        files: bool = True,
    ) -> Response:
        """Show an interaction of a registered kind and return the person's response.

        `details` are read-only facts the card lists; `validator` names a config card's
        whole-configuration validator (registered by the app that asks); `ask` and
        `requires_other` say who is asked besides, or instead of, the owner
        (playground.inbox.routing);
        `escalate_after` and `escalate_to` who is added if it is still unanswered by then.
        `files=False` is for a source that cannot receive a file (an MCP server): a file
        field degrades the question.
        """
        index = self._next_call()
        part = self._recorded.parts.get(index)
        if ask is None and kind == "elicitation":
            ask = self._default_ask("questions")
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
                index=index,
                kind_name=kind,
                tool_name=tool_name,
                payload=payload,
                value=value,
                allowed_actions=actions,
                intent=intent or "",
                tool_call_id=id or f"call_{self.turn.pk}_{index}",
                approval_key=approval_key,
                ask=ask,
                requires_other=requires_other,
                escalate_after=escalate_after,
                escalate_to=escalate_to,
                files=files,
            )
            await self._fold_corrected(part)
        elif (part.payload or {}).get("message") != message:
            raise ReplayDivergedError(
                f"On replay, call {index} of this turn asked {message!r}, but the recorded "
                f"question was {part.message!r}. Given the same answers an agent must make the "
                "same calls in the same order: put anything random or external in ctx.step()."
            )
        if part.state == Part.State.DEGRADED:
            self._uncorrected.append(part)
        else:
            self._uncorrected = []  # a recorded question after them: folded already
        if part.state == Part.State.PENDING:
            raise Suspended(part.pk)
        if part.resumed_at is None and part.settled_at is not None:
            await Part.objects.filter(pk=part.pk).aupdate(resumed_at=timezone.now())
        return Response.from_part(part)

    async def _fold_corrected(self, part: Part) -> None:
        """A question that can be shown, after ones that could not: fold those away."""
        if part.state == Part.State.DEGRADED or not self._uncorrected:
            return
        for earlier in self._uncorrected:
            earlier.conversation = self.conversation
        html = await sync_to_async(fragments.render_corrected)(self._uncorrected)
        await push_html(self.conversation.pk, html)

    async def _create_part(self, *, index: int, **options) -> Part:
        part, html = await sync_to_async(_build_save_and_render)(self.turn, index, options)
        if html is None:
            return await Part.objects.aget(turn=self.turn, call_index=index)
        await push_html(self.conversation.pk, html)
        if part.is_pending:
            await live.tell_audience(part)
        return part


def _build_save_and_render(turn: Turn, index: int, options: dict) -> tuple[Part, str | None]:
    """Build and insert a new part and return it with its fragment, in one hop off the event
    loop (routing reads the database); the fragment is None if another run of the turn saved
    the part first.

    A saved part is in the chat (a page load or a reconnecting tab shows it), so `pushed_at`
    goes in the INSERT: no second write after the push, which is best effort anyway.
    """
    part = build_part(turn=turn, call_index=index, **options)
    part.pushed_at = timezone.now()
    try:
        part.save()
    except IntegrityError:
        return part, None
    return part, fragments.render_new_part(part)


def _start_step(
    turn: Turn,
    index: int,
    name: str,
    arguments: str,
    shown: bool,
    unfinished: bool,
    start: Callable[[], str | None] | None = None,
) -> tuple[Step, str | None, Suspended | None]:
    """Record that a step starts (or starts again, after a run that did not finish it), then
    run the step's `start`; return the record, the fragments to show and the Suspended
    `start` raised (the step is recorded as interrupted then), in one hop off the event loop.
    The record's status is already recorded if another run of the turn finished the step
    meanwhile."""
    fields = {
        "name": name,
        "arguments": arguments,
        "shown": shown,
        "status": Step.Status.RUNNING,
        "started_at": timezone.now(),
        "outcome": "",
        "raw": "",
        "finished_at": None,
    }
    record = Step(turn=turn, call_index=index, **fields)
    if not unfinished:
        try:
            record.save(force_insert=True)
        except IntegrityError:
            unfinished = True  # another run of this turn started it first
    if unfinished:
        ours = Step.objects.filter(turn=turn, call_index=index)
        if ours.exclude(status__in=Step.RECORDED).update(**fields):
            record.pk = ours.values_list("pk", flat=True).get()
        else:
            return ours.get(), None, None  # recorded meanwhile: its result is the truth
    html = fragments.render_step(record) if shown else None
    if start is None:
        return record, html, None
    try:
        started = start()
    except Suspended as error:
        _, html, _ = _finish_step(_ended(record, Step.Status.INTERRUPTED, error.step_outcome))
        return record, html, error
    return record, "".join(filter(None, [started, html])) or None, None


def _run_hidden_step(
    turn: Turn,
    index: int,
    name: str,
    arguments: str,
    unfinished: bool,
    fn: Callable,
    args: tuple,
    describe: steps.Describe | None,
) -> Any:
    """Run a step the chat does not show and record how it went, in one hop and one write;
    return its result (another run's, if that one recorded the step first). Nobody watches
    it run, so it is not recorded as started: a run that dies in it leaves no record, and
    the replay runs it again, as it does a step left unfinished."""
    record = Step(
        turn=turn,
        call_index=index,
        name=name,
        arguments=arguments,
        shown=False,
        started_at=timezone.now(),
    )
    try:
        try:
            result = json.loads(json.dumps(fn(*args)))  # what a replay returns, exactly
        except Exception as error:
            failed = _ended(record, Step.Status.FAILED, steps.error_outcome(error))
            _record_hidden_step(failed, unfinished)
            raise
        status, text = _described(record, describe, result)
        if _record_hidden_step(_ended(record, status, text, result), unfinished):
            return result
        return Step.objects.get(turn=turn, call_index=index).result
    finally:
        # A thread of the loop's pool keeps no pooled connection (a SQLite file's is kept).
        close_old_connections()


def _record_hidden_step(record: Step, unfinished: bool) -> bool:
    """Write a hidden step's record; return False if another run of the turn recorded the
    step first (its record stays: it is the truth)."""
    if not unfinished:
        try:
            record.save(force_insert=True)
            return True
        except IntegrityError:
            pass  # another run of this turn started the step first
    fields = ("status", "outcome", "raw", "result", "started_at", "finished_at")
    earlier = Step.objects.filter(turn=record.turn, call_index=record.call_index)
    written = earlier.exclude(status__in=Step.RECORDED).update(
        **{name: getattr(record, name) for name in fields}
    )
    return bool(written)


def _described(record: Step, describe: steps.Describe | None, result: Any) -> tuple[str, str]:
    """Return the status and outcome text a step's result gives it (its raw view kept)."""
    outcome = _describe(describe, result)
    record.raw = steps.raw_text(outcome.raw)
    status = Step.Status.ERROR if outcome.failed else Step.Status.DONE
    return status, steps.describe_value(outcome.text)


def _ended(record: Step, status: str, outcome: str, result: Any = None) -> Step:
    record.status, record.outcome, record.result = status, outcome, result
    record.finished_at = timezone.now()
    return record


def _argument_summary(arguments: dict | str | None) -> str:
    if not arguments:
        return ""
    if isinstance(arguments, dict):
        return steps.describe_mapping(arguments)
    return steps.describe_value(arguments, steps.MAX_ARGUMENTS)


def _save_shown_step(record: Step) -> str | None:
    """Record a display-only step; return its fragment (None: a run of this turn did first)."""
    try:
        record.save(force_insert=True)
    except IntegrityError:
        return None
    return fragments.render_step(record)


def _finish_step(
    record: Step, finish: Callable[[Any], str | None] | None = None
) -> tuple[bool, str | None, Suspended | None]:
    """Write how a step went unless another run of the turn recorded it first, after the
    step's `finish`; return whether it was written, the fragments to show, and the Suspended
    `finish` raised (one hop off the event loop for all)."""
    finished, suspended = None, None
    if finish is not None:
        try:
            finished = finish(record.result)
        except Suspended as error:
            suspended = error
            record.status, record.outcome = Step.Status.INTERRUPTED, error.step_outcome
            record.result, record.raw = None, ""
    unrecorded = Step.objects.filter(pk=record.pk).exclude(status__in=Step.RECORDED)
    written = unrecorded.update(
        status=record.status,
        outcome=record.outcome,
        result=record.result,
        raw=record.raw,
        finished_at=record.finished_at,
    )
    html = fragments.render_step(record) if written and record.shown else None
    return bool(written), "".join(filter(None, [finished, html])) or None, suspended


def _describe(describe: steps.Describe | None, result: Any) -> steps.Outcome:
    """Return how a step went; a describer that fails shows the result in short instead (how
    a step reads must never end the run)."""
    if describe is not None:
        try:
            return describe(result)
        except Exception:
            logger.warning("describing a step's result failed", exc_info=True)
    return steps.default_outcome(result)


def _save_and_render_message(
    turn: Turn, index: int, role: str, text: str, plain: bool
) -> str | None:
    """Save a message of the turn and return its fragment, in one hop off the event loop;
    return None if another run of the turn said it first."""
    try:
        message = Message.objects.create(
            turn=turn, call_index=index, role=role, text=text, plain=plain
        )
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


def connection_message(declared: services.Service, asker: str, reason: str | None) -> str:
    """Return what a connection card says: the agent's reason, or that it needs one."""
    return (reason or "").strip() or f"{asker} needs your {declared.title} connection to continue."


def connection_card(user, declared: services.Service) -> dict:
    """Return a `connection` card's value: the service (names and titles, never a value),
    whether it is connected by signing in, and the person's existing connection."""
    found = latest_connection(user, declared.name)
    return {
        "service": declared.name,
        "title": declared.title,
        "fields": [item.to_dict() for item in declared.fields],
        "signin": declared.oauth is not None,
        "existing": found and {"id": str(found.id), "label": found.label},
    }


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
    ask: list[str] | None = None,
    requires_other: bool = False,
    escalate_after: float | timedelta | None = None,
    escalate_to: list[str] | None = None,
    files: bool = True,
) -> Part:
    """Return a new, unsaved part of `turn`: pending, degraded with its reason, or settled at
    once (display cards, and kinds this client does not handle). Every source asks this way.

    `ask` names the people and groups it is routed to, checked here (playground.inbox.routing): a
    name
    the conversation's owner may not address degrades the part, and nobody is asked. With
    `files=False` (the source cannot receive a file) a question with a file field degrades.
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
        asker=turn.conversation.agent.name,
        approval_key=approval_key,
        owner_may_answer=not requires_other,
    )
    reason = _route(part, ask, requires_other) or _escalation(part, escalate_after, escalate_to)
    if reason:
        part.state, part.degraded_reason, part.settled_at = Part.State.DEGRADED, reason, now
    elif kind is None:
        part.state, part.response, part.settled_at = Part.State.DEGRADED, NOT_HANDLED, now
        part.degraded_reason = f'no interaction kind "{kind_name or tool_name}" in this client'
    else:
        part.normalized, reason = kind.parse(payload, value)
        if not reason and not files and (refused := _refuses_files(payload)):
            part.normalized, reason = None, refused
        if reason:
            part.state, part.degraded_reason, part.settled_at = Part.State.DEGRADED, reason, now
        elif kind.settles_immediately:
            part.state, part.settled_at = Part.State.SUBMITTED, now
            part.response = contract.accept({})
    return part


def _refuses_files(payload: dict) -> str:
    """Return why a question cannot go to a source without files ("" when it has no file)."""
    request = contract.parse_request(payload, files=False)
    return request.reason if isinstance(request, contract.Degraded) else ""


def _route(part: Part, ask: list[str] | None, requires_other: bool) -> str:
    """Give the part its audience; return why it cannot have it ("" when it can)."""
    if not ask:
        return "requires_other needs ask: name who may answer instead" if requires_other else ""
    audience = routing.resolve(part.conversation.owner, ask)
    if isinstance(audience, str):
        return audience
    part.ask, part.audience = audience.names, (audience.users, audience.groups)
    return ""


def _escalation(part: Part, after: float | timedelta | None, to: list[str] | None) -> str:
    """Plan the part's escalation; return why it cannot have it ("" when it can)."""
    if after is None and not to:
        return ""
    if after is None or not to:
        return "escalate_after and escalate_to go together: when, and who is added"
    seconds = after.total_seconds() if isinstance(after, timedelta) else after
    if not isinstance(seconds, (int, float)) or seconds <= 0:
        return "escalate_after must be a positive number of seconds"
    audience = routing.resolve(part.conversation.owner, to)
    if isinstance(audience, str):
        return audience.replace("ask has", "escalate_to has", 1)
    part.escalate_to = audience.names
    part.escalate_at = timezone.now() + timedelta(seconds=seconds)
    return ""


def _approval_key(action: str, details: dict | None) -> str:
    identity = json.dumps([action, details or {}], sort_keys=True, default=str)
    return hashlib.sha256(identity.encode()).hexdigest()


async def _approved_for_conversation(conversation_id: int, key: str) -> bool:
    approvals = Part.objects.filter(
        conversation_id=conversation_id,
        approval_key=key,
        render_kind=approval.KIND.name,
        state=Part.State.SUBMITTED,
        ask=[],  # a routed approval grants nothing beyond itself
    ).values_list("response", flat=True)
    scopes = [(response.get("content") or {}).get("scope") async for response in approvals]
    return "conversation" in scopes

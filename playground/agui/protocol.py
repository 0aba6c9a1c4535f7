"""What we send an AG-UI agent and how we read what it streams back (AG-UI 1.0, its own types).

`run_input` builds the `RunAgentInput` of one run: the conversation's messages, the agent's
state, our frontend tools (`request_input`, `request_approval`, described in the contract's
words) and, after an interrupt, the resume entries. `RunReader` follows one run's events in
order and keeps every one of them (the wire); anything a conforming agent would not send
(a malformed or unknown event, content before RUN_STARTED, a call to a frontend tool we do not
offer, too many events) ends the run with `BadStream`, whose message names the problem.
Pure Python: no Django.
"""

import json
import time
from typing import Any

import jsonpatch
from ag_ui.core import PROTOCOL_VERSION, Event, EventType, RunAgentInput, Tool
from pydantic import TypeAdapter, ValidationError

from elicitation import frontend_tools as tools

FRONTEND_TOOLS = {
    tools.REQUEST_INPUT: Tool(
        name=tools.REQUEST_INPUT,
        description=tools.REQUEST_INPUT_DESCRIPTION,
        parameters=tools.REQUEST_INPUT_PARAMETERS,
    ),
    tools.REQUEST_APPROVAL: Tool(
        name=tools.REQUEST_APPROVAL,
        description=tools.REQUEST_APPROVAL_DESCRIPTION,
        parameters=tools.REQUEST_APPROVAL_PARAMETERS,
    ),
}
EVENT = TypeAdapter(Event)
KNOWN_TYPES = {member.value for member in EventType}
RENDER_EVENT = "render"


class BadStream(Exception):
    """The agent sent something a conforming AG-UI agent would not; the message says what."""


def run_input(
    *,
    thread_id: str,
    run_id: str,
    messages: list[dict],
    state: Any = None,
    resume: list[dict] | None = None,
) -> dict:
    """Return the JSON body of one run (validated by the protocol's own model)."""
    body = RunAgentInput(
        thread_id=thread_id,
        run_id=run_id,
        protocol_version=PROTOCOL_VERSION,
        state=state if state is not None else {},
        messages=messages,
        tools=list(FRONTEND_TOOLS.values()),
        context=[],
        forwarded_props={},
        resume=resume or None,
    )
    return body.model_dump(mode="json", by_alias=True)


def user_message(message_id: str, text: str) -> dict:
    return {"id": message_id, "role": "user", "content": text}


def call_message(tool_call_id: str, name: str, arguments: str) -> dict:
    """Return the assistant message of one tool call (`arguments` as JSON text)."""
    call = {
        "id": tool_call_id,
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }
    return {"id": f"calls-{tool_call_id}", "role": "assistant", "toolCalls": [call]}


def tool_message(tool_call_id: str, result: Any) -> dict:
    content = result if isinstance(result, str) else json.dumps(result)
    return {
        "id": f"result-{tool_call_id}",
        "role": "tool",
        "content": content,
        "toolCallId": tool_call_id,
    }


class RunReader:
    """One run's events, read in order into what the chat shows and what the next run sends."""

    def __init__(self, *, state: Any, max_events: int, resumed: dict[str, dict] | None = None):
        self.max_events = max_events
        # Calls an earlier run's interrupts suspended, by id ({name, arguments}): a run that
        # resumes them may open with their results (Mastra's resumed tool).
        self.resumed = resumed or {}
        self.events: list[dict] = []
        self.state = state if state is not None else {}
        self.started = False
        self.finished = False
        self.error = ""
        self.texts: dict[str, list[str]] = {}  # message id -> its text so far, in order
        self.open_texts: set[str] = set()
        self.messages: dict[str, dict] = {}  # message id -> AG-UI message (assistant, tool)
        self.calls: dict[str, dict] = {}  # tool call id -> {id, name, arguments, parent}
        self.open_calls: set[str] = set()
        self.results: dict[str, str] = {}  # tool call id -> its result (a backend tool)
        # The agent's own steps and tool calls, display only: {name, arguments, outcome, started,
        # finished} (times in epoch seconds, when the events arrived).
        self.steps: list[dict] = []
        self.open_steps: dict[str, dict] = {}  # step name or tool call id -> its step
        self.renders: dict[str, str] = {}
        self.interrupts: list[dict] = []
        self.snapshot: list[dict] | None = None

    @property
    def text(self) -> str:
        return "\n\n".join("".join(parts) for parts in self.texts.values() if "".join(parts))

    def feed(self, data: str) -> None:
        """Read one event's JSON; raise BadStream when it cannot be part of this run."""
        if self.finished:
            raise BadStream("the agent sent an event after the run had ended")
        if len(self.events) >= self.max_events:
            raise BadStream(f"the run sent more than {self.max_events:,} events (AGUI_MAX_EVENTS)")
        try:
            raw = json.loads(data)
        except ValueError as error:
            raise BadStream(
                f"an event is not JSON ({error.msg} at character {error.pos})"
            ) from None
        self.events.append(raw)
        self.now = time.time()
        kind = raw.get("type") if isinstance(raw, dict) else None
        if not isinstance(kind, str):
            raise BadStream("an event has no type")
        if kind not in KNOWN_TYPES:
            raise BadStream(f"unknown event type {kind!r} (not an AG-UI 1.0 event)")
        try:
            event = EVENT.validate_python(raw)
        except ValidationError as error:
            first = error.errors(include_url=False, include_input=False)[0]
            where = ".".join(str(part) for part in first["loc"][1:]) or "event"
            raise BadStream(f"a malformed {kind} event ({where}: {first['msg']})") from None
        if kind != "RUN_STARTED" and not self.started:
            raise BadStream(f"{kind} came before RUN_STARTED (events out of order)")
        getattr(self, f"_on_{kind.lower()}", self._keep)(event)

    def fail(self, message: str) -> None:
        self.error = message

    def outcome(self) -> dict:
        """Return the run as recorded: the wire, and what the chat and the next run need."""
        if not self.error and not self.finished:
            self.error = (
                "the stream ended before RUN_FINISHED (cut mid-run); send your message again "
                "to retry"
            )
        calls = [
            {"id": call["id"], "name": call["name"], "arguments": call["arguments"]}
            for call in self._unanswered()
        ]
        return {
            "events": self.events,
            "error": self.error,
            "text": self.text,
            "messages": list(self.messages.values()),
            "snapshot": self.snapshot,
            "calls": [] if self.error else calls,
            "steps": sorted(
                [*self.steps, *map(_unfinished, self.open_steps.values())],
                key=lambda step: step["started"] or step["finished"],
            ),
            "state": self.state,
            "renders": self.renders,
            "interrupts": [] if self.error else self.interrupts,
        }

    # --- events -------------------------------------------------------------------------------

    def _keep(self, event) -> None:
        """Kept on the wire only (reasoning, activity, raw, subagents)."""

    def _on_run_started(self, event) -> None:
        if self.started:
            raise BadStream("a second RUN_STARTED in one run")
        self.started = True

    def _on_run_finished(self, event) -> None:
        self.finished = True
        outcome = event.outcome
        if outcome is not None and outcome.type == "interrupt":
            self.interrupts = [i.model_dump(mode="json", by_alias=True) for i in outcome.interrupts]
        unknown = [
            call["name"] for call in self._unanswered() if call["name"] not in FRONTEND_TOOLS
        ]
        if unknown:
            raise BadStream(
                f"the agent called the frontend tool {unknown[0]!r}, which this playground does "
                f"not offer (it offers {' and '.join(FRONTEND_TOOLS)})"
            )

    def _unanswered(self) -> list[dict]:
        """Return the calls that wait for us: no result, and no interrupt of this run about them
        (such a call waits on its interrupt)."""
        waiting = {interrupt.get("toolCallId") for interrupt in self.interrupts}
        return [
            call
            for call in self.calls.values()
            if call["id"] not in self.results and call["id"] not in waiting
        ]

    def _on_run_error(self, event) -> None:
        self.finished = True
        code = f" ({event.code})" if event.code else ""
        self.error = f"the agent reported an error{code}: {event.message}"

    def _assistant(self, message_id: str) -> dict:
        return self.messages.setdefault(message_id, {"id": message_id, "role": "assistant"})

    def _on_text_message_start(self, event) -> None:
        if event.message_id in self.open_texts:
            raise BadStream(f"TEXT_MESSAGE_START for {event.message_id!r}, which had started")
        self.open_texts.add(event.message_id)
        self.texts.setdefault(event.message_id, [])
        self._assistant(event.message_id)

    def _on_text_message_content(self, event) -> None:
        if event.message_id not in self.open_texts:
            raise BadStream(
                f"TEXT_MESSAGE_CONTENT for {event.message_id!r} before its TEXT_MESSAGE_START "
                "(events out of order)"
            )
        self._add_text(event.message_id, event.delta)

    def _on_text_message_end(self, event) -> None:
        if event.message_id not in self.open_texts:
            raise BadStream(
                f"TEXT_MESSAGE_END for {event.message_id!r} before its TEXT_MESSAGE_START "
                "(events out of order)"
            )
        self.open_texts.discard(event.message_id)

    def _on_text_message_chunk(self, event) -> None:
        message_id = event.message_id or next(reversed(self.texts), None)
        if message_id is None:
            raise BadStream("a TEXT_MESSAGE_CHUNK with no messageId starts no message")
        self.texts.setdefault(message_id, [])
        self._assistant(message_id)
        self._add_text(message_id, event.delta or "")

    def _add_text(self, message_id: str, delta: str) -> None:
        self.texts[message_id].append(delta)
        self.messages[message_id]["content"] = "".join(self.texts[message_id])

    def _on_tool_call_start(self, event) -> None:
        if event.tool_call_id in self.calls:
            raise BadStream(f"TOOL_CALL_START for {event.tool_call_id!r}, which had started")
        self._start_call(event.tool_call_id, event.tool_call_name, event.parent_message_id)

    def _start_call(self, call_id: str, name: str, parent: str | None) -> None:
        parent = parent or f"calls-{call_id}"
        call = {"id": call_id, "name": name, "arguments": "", "parent": parent}
        if name not in FRONTEND_TOOLS:
            self._open_step(call_id, f"tool {name}")
        self.calls[call_id] = call
        self.open_calls.add(call_id)
        message = self._assistant(parent)
        message.setdefault("toolCalls", []).append(
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}
        )

    def _on_tool_call_args(self, event) -> None:
        if event.tool_call_id not in self.open_calls:
            raise BadStream(
                f"TOOL_CALL_ARGS for {event.tool_call_id!r} before its TOOL_CALL_START "
                "(events out of order)"
            )
        self._add_args(event.tool_call_id, event.delta)

    def _add_args(self, call_id: str, delta: str) -> None:
        call = self.calls[call_id]
        call["arguments"] += delta
        for entry in self.messages[call["parent"]]["toolCalls"]:
            if entry["id"] == call_id:
                entry["function"]["arguments"] = call["arguments"]

    def _on_tool_call_end(self, event) -> None:
        if event.tool_call_id not in self.open_calls:
            raise BadStream(
                f"TOOL_CALL_END for {event.tool_call_id!r} before its TOOL_CALL_START "
                "(events out of order)"
            )
        self.open_calls.discard(event.tool_call_id)

    def _on_tool_call_chunk(self, event) -> None:
        call_id = event.tool_call_id or next(reversed(self.calls), None)
        if call_id is None:
            raise BadStream("a TOOL_CALL_CHUNK with no toolCallId starts no call")
        if call_id not in self.calls:
            if not event.tool_call_name:
                raise BadStream(f"the first TOOL_CALL_CHUNK of {call_id!r} has no toolCallName")
            self._start_call(call_id, event.tool_call_name, event.parent_message_id)
        self._add_args(call_id, event.delta or "")

    def _on_tool_call_result(self, event) -> None:
        if event.tool_call_id not in self.calls and event.tool_call_id not in self.resumed:
            raise BadStream(
                f"TOOL_CALL_RESULT for {event.tool_call_id!r}, a call this run did not start"
            )
        content = (
            event.content
            if isinstance(event.content, str)
            else json.dumps([part.model_dump(mode="json", by_alias=True) for part in event.content])
        )
        self.results[event.tool_call_id] = content
        self.open_calls.discard(event.tool_call_id)
        self.messages[event.message_id] = {
            "id": event.message_id,
            "role": "tool",
            "content": content,
            "toolCallId": event.tool_call_id,
        }
        if event.tool_call_id not in self.calls:  # an earlier run's call, ended here: no start
            suspended = self.resumed[event.tool_call_id]
            step = {**self._step(f"tool {suspended['name']}"), "started": None}
            step["arguments"] = _arguments(suspended["arguments"])
            self._close_step(step, content)
            return
        step = self.open_steps.pop(event.tool_call_id, None)
        if step is not None:
            step["arguments"] = _arguments(self.calls[event.tool_call_id]["arguments"])
            self._close_step(step, content)

    def _on_step_started(self, event) -> None:
        self._open_step(f"step:{event.step_name}", f"step {event.step_name}")

    def _on_step_finished(self, event) -> None:
        # A step a run before this one started (then interrupted) ends here: shown, no start.
        key = f"step:{event.step_name}"
        step = self.open_steps.pop(key, None) or {
            **self._step(f"step {event.step_name}"),
            "started": None,
        }
        self._close_step(step, "")

    def _open_step(self, key: str, name: str) -> None:
        self.open_steps[key] = self._step(name)

    def _step(self, name: str) -> dict:
        return {
            "name": name,
            "arguments": "",
            "outcome": "",
            "started": self.now,
            "finished": None,
        }

    def _close_step(self, step: dict, outcome: str) -> None:
        step.update(outcome=outcome, finished=self.now)
        self.steps.append(step)

    def _on_state_snapshot(self, event) -> None:
        self.state = event.snapshot

    def _on_state_delta(self, event) -> None:
        delta = self.events[-1]["delta"]  # as sent: RFC 6902 operations
        try:
            self.state = jsonpatch.apply_patch(self.state, delta)
        except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException, TypeError) as error:
            raise BadStream(f"a STATE_DELTA that does not apply to the state ({error})") from None

    def _on_messages_snapshot(self, event) -> None:
        self.snapshot = [m.model_dump(mode="json", by_alias=True) for m in event.messages]

    def _on_custom(self, event) -> None:
        if event.name != RENDER_EVENT:
            return
        value = event.value if isinstance(event.value, dict) else {}
        call_id, kind = value.get("toolCallId"), value.get("kind")
        if not isinstance(call_id, str) or not isinstance(kind, str):
            raise BadStream('a CUSTOM "render" event needs {"toolCallId": ..., "kind": ...}')
        self.renders[call_id] = kind


def _arguments(text: str) -> Any:
    """Return a tool call's arguments as sent: a JSON object read, anything else as text."""
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return text
    return value if isinstance(value, dict) else text


def _unfinished(step: dict) -> dict:
    return {**step, "outcome": "Not finished when the run ended."}

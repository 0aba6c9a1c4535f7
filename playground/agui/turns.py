"""An AG-UI agent as an agent: each message is one or more runs of the agent, POSTed as
`RunAgentInput` and read from its event stream.

A run is a recorded step of the turn (its input and every event it sent: the wire), so a
replay never sends a finished run again. The run ends when the agent calls one of our frontend
tools or interrupts: the question is a part like every other (nothing is held while it waits),
and the answer starts the next run of the turn, with the tool result message (or the resume
entry). Run ids are the turn and the run's index within it (`<turn>-<index>`); a run cut by a
crash is sent again under the same id after a restart. The agent's state and messages carry
over from run to run and from turn to turn.
"""

import asyncio
import json
from datetime import UTC, datetime
from functools import partial

from elicitation import frontend_tools
from elicitation.kinds import KINDS, approval, connection, display
from playground.agui import agents_file, protocol
from playground.agui.client import run_once
from playground.agui.errors import AguiRunFailed
from playground.agui.wire import wire_of
from playground.chat.live_text import STOP_CHECK_SECONDS, LiveText
from playground.connections.required import require_connection
from playground.connections.services import ServicesFileError, UnknownServiceError
from playground.runs.models import Step, Turn
from playground.runs.runtime import TurnContext
from playground.runs.steps import Outcome

AFTER_TURN = "AG-UI conversation after the turn"
CUT_OFF = "The agent's reply was cut off"
ANSWER_SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string", "title": "Answer"}},
    "required": ["answer"],
}


async def run_agui_turn(
    ctx: TurnContext, declared: agents_file.AguiAgentConfig, message: str
) -> None:
    """Run the agent's runs of this turn: one, and one more after each answer."""
    credential = await _person_credential(ctx, declared)
    if credential is False:
        await ctx.say(f"Not connected, so {declared.display_name} was not run.")
        return
    before = await ctx.step("AG-UI conversation before the turn", _before, ctx.turn.pk, shown=False)
    messages = [*before["messages"], protocol.user_message(f"turn-{ctx.turn.pk}", message)]
    state, resume, resumed, index = before["state"], None, {}, 0
    while True:
        run_id = f"{ctx.turn.pk}-{index}"
        body = protocol.run_input(
            thread_id=str(ctx.conversation.pk),
            run_id=run_id,
            messages=messages,
            state=state,
            resume=resume,
        )
        live = LiveText(ctx.turn)
        run = await ctx.step(
            f"AG-UI run {run_id}",
            _run,
            declared,
            credential,
            body,
            live,
            resumed,
            arguments={"agent": declared.name, "messages": len(messages)},  # (no address)
            describe=_describe_run,
            start=live.thinking,  # shown as the run goes out, with the step
            finish=live.cleared,  # the text becomes a message next
        )
        for step in run["steps"]:
            await ctx.show_step(
                step["name"],
                arguments=step["arguments"],
                outcome=step["outcome"],
                started_at=_moment(step["started"]),
                finished_at=_moment(step["finished"]),
            )
        if run["text"]:
            await ctx.say(_reply(run))
        if run["error"]:
            raise AguiRunFailed(run["error"], address=declared.url)
        state = run["state"]
        messages = run["snapshot"] or [*messages, *run["messages"]]
        for call in run["calls"]:
            result = await _answer_call(ctx, call, run["renders"].get(call["id"]))
            messages.append(protocol.tool_message(call["id"], result))
        resumed = _suspended_calls(run["interrupts"], messages)
        messages += [
            protocol.call_message(call_id, call["name"], call["arguments"])
            for call_id, call in resumed.items()
            if call["unseen"]
        ]
        resume = [await _answer_interrupt(ctx, interrupt) for interrupt in run["interrupts"]]
        if not run["calls"] and not resume:
            break
        index += 1
    await ctx.step(AFTER_TURN, _after, messages, state, shown=False)


async def _person_credential(ctx: TurnContext, declared: agents_file.AguiAgentConfig):
    """Return an opener of the person's credential (None: the agent needs none; False: they
    would not connect)."""
    if not declared.connection:
        return None
    try:
        reference = await require_connection(
            ctx,
            declared.connection,
            reason=f"{declared.display_name} runs with your own {declared.connection} credential.",
        )
    except (UnknownServiceError, ServicesFileError) as error:
        raise AguiRunFailed(str(error)) from None
    return False if reference is None else partial(ctx.connection, reference)


async def _run(declared, credential, body: dict, live: LiveText, resumed: dict) -> dict:
    """POST one run (the person's credential opened now, never recorded); show its text live
    and log it on the conversation's wire. `resumed`: the calls it may end (`RunReader`)."""
    if credential is not None:
        opened = await credential()
        declared = agents_file.replace_headers(declared, opened.headers())
    wire = wire_of(live.turn.conversation_id, declared)
    running = asyncio.ensure_future(
        run_once(declared, body, on_text=live.update, wire=wire, resumed=resumed)
    )
    try:
        # While the agent is silent, look for a Stop every STOP_CHECK_SECONDS (raises then).
        while not (await asyncio.wait({running}, timeout=STOP_CHECK_SECONDS))[0]:
            await live.update(live.text)
    finally:
        running.cancel()  # after a Stop: the agent sees its stream closed
    return {"input": body, **running.result()}


def _reply(run: dict) -> str:
    """Return the run's text as the person reads it: a reply the run did not finish says so."""
    if not run["error"]:
        return run["text"]
    return f"{run['text']}\n\n({CUT_OFF}: {run['error']})"


def _moment(epoch: float | None) -> datetime | None:
    return None if epoch is None else datetime.fromtimestamp(epoch, UTC)


def _describe_run(run: dict) -> Outcome:
    """Return how a run went, in a line: its events, and what it asked or why it failed."""
    events = f"{len(run['events'])} event(s)"
    if run["error"]:
        cut = "; the reply so far is kept, marked as cut off" if run["text"] else ""
        return Outcome(f"{events}; {run['error']}{cut}", failed=True)
    asked = [call["name"] for call in run["calls"]] + ["an interrupt"] * len(run["interrupts"])
    line = f"{events}; asked through {', '.join(asked)}" if asked else f"{events}; done"
    # The agent's state as the run left it, viewable in the chat (secrets removed, shortened).
    return Outcome(f"{line}; state {json.dumps(run['state'])}" if run["state"] else line)


async def _answer_call(ctx: TurnContext, call: dict, render_kind: str | None):
    """Ask the person what a frontend tool call asks; return the tool result for the agent."""
    try:
        arguments = json.loads(call["arguments"] or "{}")
    except ValueError:
        arguments = None
    if not isinstance(arguments, dict):
        arguments = {"message": f"{call['name']} with arguments that are not a JSON object"}
    message = str(arguments.get("message", ""))
    if call["name"] == frontend_tools.REQUEST_APPROVAL:
        details = arguments.get("details")
        details = {str(k): str(v) for k, v in details.items()} if isinstance(details, dict) else {}
        approved = await ctx.confirm(message, details=details, action=f"agui:{message}")
        return {"approved": approved}
    schema, value = arguments.get("requestedSchema"), arguments.get("value")
    kind = _render_kind(render_kind, message, schema, value)
    response = await ctx.render(
        kind=kind,
        message=message,
        data_schema=schema,
        value=None if kind == "elicitation" else value,
        id=call["id"],
        tool_name=call["name"],
    )
    return response.envelope


def _render_kind(kind: str | None, message: str, schema, value) -> str:
    """Return the kind a CUSTOM `render` event names when it can show the call, else ours.

    The call's `value` is the kind's value: a config card's proposal, a display card, a URL.
    Not approval (its own tool) nor connection (a reference only this playground can open).
    """
    if not kind or kind not in KINDS or kind in (approval.KIND.name, connection.KIND.name):
        return "elicitation"
    if kind == display.KIND.name:  # as `ctx.render` builds a display card's payload
        if not isinstance(value, dict):
            return "elicitation"
        payload = {"message": message, **value}
    else:
        payload = {"message": message, "requestedSchema": schema}
    return "elicitation" if KINDS[kind].parse(payload, value)[1] else kind


async def _answer_interrupt(ctx: TurnContext, interrupt: dict) -> dict:
    """Ask the person what an interrupt asks; return its resume entry.

    A response schema makes it a form, whatever else it carries; an interrupt about a tool
    call (or for a decision) without one is an approval card; a message alone is a question
    answered in words; with none of these there is nothing to ask: not handled.
    """
    entry = {"interruptId": interrupt["id"]}
    schema, message = interrupt.get("responseSchema"), _interrupt_message(ctx, interrupt)
    if schema is not None:
        response = await ctx.elicit(message, _labelled(schema), id=interrupt["id"])
    elif interrupt.get("toolCallId") or interrupt.get("reason") in ("tool_call", "approval"):
        approved = await ctx.confirm(message, action=f"agui-interrupt:{message}")
        return {**entry, "status": "resolved", "payload": {"approved": approved}}
    elif interrupt.get("message"):
        response = await ctx.elicit(message, ANSWER_SCHEMA, id=interrupt["id"])
    else:
        kind = f"interrupt:{interrupt.get('reason') or 'unknown'}"  # no kind: not handled
        response = await ctx.render(kind=kind, message=message, id=interrupt["id"])
    if response.accepted:
        payload = response.content if schema is not None else response.content.get("answer")
        return {**entry, "status": "resolved", "payload": payload}
    if response.action in ("decline", "cancel"):
        return {**entry, "status": "cancelled"}
    # Not asked (a schema the contract refuses, nothing to ask): the agent is told why, as a
    # request_input call is (the degradation text, or "not handled").
    return {**entry, "status": "resolved", "payload": response.envelope}


def _interrupt_message(ctx: TurnContext, interrupt: dict) -> str:
    """Return what an interrupt asks, as text: its message; else what a Mastra tool suspended
    with (`metadata.mastra.suspendPayload`: a string, an object's one value, or its JSON);
    else its reason, when that is words rather than a code; else a plain default."""
    if interrupt.get("message"):
        return interrupt["message"]
    payload = _mastra(interrupt).get("suspendPayload")
    if isinstance(payload, dict) and len(payload) == 1:
        [payload] = payload.values()
    if isinstance(payload, str) and payload.strip():
        return payload
    if payload not in (None, "", {}, []):
        return json.dumps(payload, ensure_ascii=False)
    reason = interrupt.get("reason") or ""
    if " " in reason.strip():
        return reason
    return f"{ctx.agent.name} needs your answer to continue."


def _mastra(interrupt: dict) -> dict:
    """Return what Mastra's AG-UI adapter says of the tool it suspended (`metadata.mastra`)."""
    metadata = interrupt.get("metadata")
    mastra = metadata.get("mastra") if isinstance(metadata, dict) else None
    return mastra if isinstance(mastra, dict) else {}


def _labelled(schema):
    """Return the schema with each field's description as its label where it has no title
    (Mastra's resume schemas, made from zod's `.describe()`, carry descriptions only)."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return schema  # the contract says what is wrong with it
    return {**schema, "properties": {name: _titled(field) for name, field in properties.items()}}


def _titled(field):
    if not isinstance(field, dict) or "title" in field:
        return field
    description = field.get("description")
    if not isinstance(description, str):
        return field
    # Shown once, as the label, not again as the help below it.
    return {**{k: v for k, v in field.items() if k != "description"}, "title": description}


def _suspended_calls(interrupts: list[dict], messages: list[dict]) -> dict[str, dict]:
    """Return the tool calls the interrupts suspended, by id: {name, arguments, unseen}.

    A call a run streamed is in the messages. Mastra's adapter streams none: its interrupt's
    metadata names it, and it is `unseen`, added to the messages so that its result (the
    resumed run's first event) follows its call.
    """
    streamed = {
        call["id"]: call["function"]
        for message in messages
        for call in message.get("toolCalls") or []
    }
    calls = {}
    for interrupt in interrupts:
        call_id = interrupt.get("toolCallId")
        if not call_id:
            continue
        if call_id in streamed:
            calls[call_id] = {**streamed[call_id], "unseen": False}
            continue
        mastra = _mastra(interrupt)
        name = mastra.get("toolName")
        arguments = json.dumps(mastra.get("args") or {}, ensure_ascii=False)
        calls[call_id] = {"name": str(name or "call"), "arguments": arguments, "unseen": bool(name)}
    return calls


def _before(turn_id: int) -> dict:
    """Return the messages and state the conversation's last finished turn ended with."""
    turn = Turn.objects.get(pk=turn_id)
    step = (
        Step.objects.filter(
            turn__conversation_id=turn.conversation_id, turn__index__lt=turn.index, name=AFTER_TURN
        )
        .order_by("-turn__index")
        .first()
    )
    return step.result if step else {"messages": [], "state": {}}


def _after(messages: list, state) -> dict:
    return {"messages": messages, "state": state}

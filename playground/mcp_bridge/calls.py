"""Call a server's tool from a turn, and put the questions the server asks to the person.

`call_tool(ctx, server, tool, arguments)` returns `{"result": <CallToolResult JSON>}` or
`{"error": <text for the chat>}`. Each round trip to the server is a recorded step of the turn,
so a replay never calls the server again for a round it already made.

Durable on 2026-07-28 servers: a round that returns `InputRequiredResult` is recorded, its
questions become parts, and the run suspends holding nothing. After the answers the next round
sends `input_responses` + `request_state` on the conversation's live session (`sessions`; a
new one if it has closed meanwhile). When the server no longer
accepts that state (a new stdio process, a restart, an expired seal) the tool is called again
from the start and the questions it asks again are answered from the recorded answers (matched
by a digest of message and schema): the server re-runs its tool up to the question.

Legacy servers push `elicitation/create` on a live session: the session is held while the
question waits (up to the server's `hold_minutes`), the runner waiting on the part's channel
group. On timeout, a crash of the server or a restart of the playground the question is
cancelled with a note saying why, and the call reports the failure. While it waits the status
line says the question waits (not that the agent works), and the part records when the session
delivered its answer (the admin timeline's "Agent resumed").

A -32042 (URL elicitation required) is answered like the Inspector does: the pages are opened,
then the call is made again on the same live session, where the server recognises the retry.

With `protocol = "auto"` a server is first spoken to in 2026-07-28 when it speaks it; if its tool
pushes `elicitation/create` anyway (the SDK's "no back-channel" error, and only that error, since
calling again re-runs the tool) the call is made again on a legacy session, and this server's
connections are legacy sessions from then on (see `connection.learn_legacy`).
"""

import hashlib
import json
import math

import anyio
from asgiref.sync import sync_to_async
from django.utils import timezone
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CONNECTION_CLOSED,
    INVALID_PARAMS,
    URL_ELICITATION_REQUIRED,
    ElicitResult,
    ErrorData,
    InputRequiredResult,
)

from elicitation import contract, mcp_wire
from elicitation.kinds import url_wait
from elicitation.models import Part
from elicitation.settle import settle_part
from playground.chat.fragments import render_status
from playground.chat.part_waiting import part_group, wait_in_group
from playground.chat.push import push_html
from playground.mcp_bridge.connection import (
    describe_error,
    learn_legacy,
    needs_back_channel,
    protocol_for,
    root_cause,
    timed_out,
)
from playground.mcp_bridge.results import describe_round
from playground.mcp_bridge.servers import ServerConfig
from playground.mcp_bridge.sessions import session
from playground.mcp_bridge.tool_forms import drop_generated_title
from playground.mcp_bridge.waking import HELD_INTENT
from playground.runs.runtime import Response, Suspended, TurnContext

ASKED_INTENT = "mcp_elicitation"
MAX_ROUNDS = 10
ACTIONS = ["accept", "decline", "cancel"]  # MCP has no prose reply
WAIT_MESSAGE = "Finish in the page that opened, then come back here."


async def list_tools(server: ServerConfig, conversation_id: int | None = None) -> list[dict]:
    """Return the server's tools as JSON (name, title, description, inputSchema, annotations),
    on the conversation's live session (see `sessions`), which keeps its listing until the
    server says its tools changed (as the Inspector does): a message costs one round trip."""
    live = None
    try:
        async with session(server, conversation_id) as live:
            tools = await _tools_of(live)
    except MCPError as error:
        if not (live is not None and live.reused and error.code == CONNECTION_CLOSED):
            raise
        # The kept session had ended meanwhile (its server stopped): listing again is harmless.
        async with session(server, conversation_id) as live:
            tools = await _tools_of(live)
    return [_json(tool) for tool in tools]


async def _tools_of(live) -> list:
    if live.tools is None:
        live.tools = (await live.client.list_tools()).tools
    return live.tools


async def call_tool(ctx: TurnContext, server: ServerConfig, tool: str, arguments: dict) -> dict:
    """Call `tool` with `arguments` within the turn of `ctx`; ask the person what it asks."""
    answers: dict[str, dict] = {}  # question digest -> ElicitResult JSON, for re-asked questions
    responses, state = None, None
    for _ in range(MAX_ROUNDS):
        outcome = await _round(ctx, server, tool, arguments, responses, state, answers)
        if "url_required" in outcome:  # -32042: open these pages, then call again
            for params in outcome["url_required"]:
                opened = await _ask_url(ctx, server, params, intent=ASKED_INTENT)
                if not opened.accepted:
                    return {"error": f"{tool} needs the page {params.get('url')} opened first."}
            responses, state = None, None
            continue
        if "input_required" not in outcome:
            return outcome
        required = outcome["input_required"]
        responses = {}
        for key, request in (required.get("inputRequests") or {}).items():
            params = request.get("params") or {}
            if params.get("mode") == "url":
                answer = elicit_result(await _ask_url(ctx, server, params, intent=ASKED_INTENT))
            else:
                answer = elicit_result(await _ask(ctx, params, intent=ASKED_INTENT))
            if isinstance(answer, ErrorData):
                return {"error": answer.message}
            responses[key] = answers[question_digest(params)] = _json(answer)
        state = required.get("requestState")
    return {"error": f"{server.display_name} kept asking for more than {MAX_ROUNDS} rounds."}


def question_digest(params: dict) -> str:
    """Return what identifies a question across calls: its message and schema."""
    question = [params.get("message"), params.get("requestedSchema")]
    return hashlib.sha256(json.dumps(question, sort_keys=True).encode()).hexdigest()


def elicit_result(response: Response) -> ElicitResult | ErrorData:
    """Return the person's response as MCP's ElicitResult, or the error a degraded one is."""
    if response.action in ACTIONS:
        return ElicitResult.model_validate(mcp_wire.elicit_result(response.envelope))
    return ErrorData(code=INVALID_PARAMS, message=response.text)


async def _ask(ctx: TurnContext, params: dict, *, intent: str) -> Response:
    return await ctx.render(
        kind="elicitation",
        message=str(params.get("message", "")),
        data_schema=drop_generated_title(params.get("requestedSchema")),
        allowed_actions=ACTIONS,
        intent=intent,
        files=False,  # MCP has no file field: such a question is degraded with the reason
    )


async def _ask_url(
    ctx: TurnContext, server: ServerConfig, params: dict, *, intent: str
) -> Response:
    """Show the URL card; once opened, wait (the wait card) until the person says "I'm done".

    The wait card suspends the run like any question: the 2026-07-28 retry and the -32042
    retry both need the out-of-band step finished first.
    """
    value = _url_value(server, params)
    opened = await ctx.render(
        kind="url", message=params.get("message", ""), value=value, intent=intent
    )
    if not opened.accepted:
        return opened
    done = await ctx.render(kind="url-wait", message=WAIT_MESSAGE, value=value)
    return opened if done.accepted else done


def _url_value(server: ServerConfig, params: dict) -> dict:
    return {
        "url": params.get("url", ""),
        "server": server.display_name,
        "elicitationId": params.get("elicitationId") or "",
    }


async def _round(ctx, server, tool, arguments, responses, state, answers) -> dict:
    ran = False

    async def send() -> dict:
        nonlocal ran
        ran = True
        outcome = await _send(ctx, server, tool, arguments, responses, state, answers)
        return outcome | {"next_call": ctx.call_index}

    outcome = await ctx.step(
        f"{server.name}: {tool}", send, arguments=arguments, describe=describe_round
    )
    if not ran:
        ctx.skip_to(outcome["next_call"])  # past the questions a held session asked
    return outcome


async def _send(ctx, server, tool, arguments, responses, state, answers) -> dict:
    if stranded := _stranded_questions(ctx):
        return {"error": await _abandon(ctx, server, stranded)}
    mode = protocol_for(server)
    outcome = await _attempt(ctx, server, tool, arguments, responses, state, answers)
    if outcome.pop("needs_legacy", False) and mode == "auto":
        # Its tool pushes elicitation/create, which only a legacy session carries. Only on this
        # error: calling again re-runs the tool (questions answered already are not re-asked).
        learn_legacy(server)
        outcome = await _attempt(ctx, server, tool, arguments, None, None, answers)
        outcome.pop("needs_legacy", None)
    return outcome


async def _attempt(ctx, server, tool, arguments, responses, state, answers) -> dict:
    held, result, problem, pages = HeldSession(ctx, server, answers), None, "", None
    needs_legacy = False
    try:
        with held.scope:
            async with session(server, ctx.conversation.pk, held) as live:
                result = await _call(live.client, tool, arguments, responses, state, answers)
    except Exception as error:
        cause = root_cause(error)
        if isinstance(cause, MCPError) and cause.code == URL_ELICITATION_REQUIRED:
            pages = (cause.error.data or {}).get("elicitations") or []
        else:
            problem = describe_error(server, error)
            needs_legacy = needs_back_channel(error)
    finally:
        await held.close(problem)
    if pages is not None:
        return {"url_required": pages}
    if held.failure or result is None:
        return {
            "error": held.failure or problem or timed_out(server),
            "needs_legacy": needs_legacy,
        }
    return _outcome(server, result)


async def _call(client, tool, arguments, responses, state, answers):
    def send(responses=None, state=None):
        return client.session.call_tool(
            tool,
            arguments,
            input_responses=responses,
            request_state=state,
            read_timeout_seconds=math.inf,  # bounded by the session's own deadline
            allow_input_required=True,
        )

    try:
        return await send(responses, state)
    except MCPError as error:
        if state is None or error.code != INVALID_PARAMS:
            raise
    # The server no longer knows this state: start over, answering what was answered already.
    result = await send()
    for _ in range(MAX_ROUNDS):
        requests = result.input_requests if isinstance(result, InputRequiredResult) else None
        known = {
            key: answers.get(question_digest(_json(request.params)))
            for key, request in (requests or {}).items()
        }
        if not known or None in known.values():
            break
        result = await send(known, result.request_state)
    return result


def _outcome(server: ServerConfig, result) -> dict:
    if isinstance(result, InputRequiredResult):
        return {"input_required": _json(result)}
    payload = _json(result)
    size = len(json.dumps(payload))
    if size > server.max_result_bytes:
        return {
            "error": f"{server.display_name} returned a result of {size:,} bytes; this "
            f"server's limit is {server.max_result_bytes:,} bytes (max_result_bytes)."
        }
    return {"result": payload}


class HeldSession:
    """A live legacy session's questions: each becomes a part; the session waits for it."""

    def __init__(self, ctx: TurnContext, server: ServerConfig, answers: dict[str, dict]):
        self.ctx = ctx
        self.server = server
        self.answers = answers  # question digest -> ElicitResult JSON, answered in this call
        self.hold_seconds = server.hold_minutes * 60
        self.scope = anyio.CancelScope(deadline=anyio.current_time() + server.timeout_seconds)
        self.waiting: list[int] = []
        self.url_waits: list[int] = []  # wait cards shown after a URL was opened
        self.failure = ""

    async def answer(self, context, params) -> ElicitResult | ErrorData:
        """The SDK's elicitation callback: ask the person and wait, holding the session."""
        question = _json(params)
        if (known := self.answers.get(question_digest(question))) is not None:
            return ElicitResult.model_validate(known)  # answered before the legacy fallback
        self.scope.deadline = anyio.current_time() + self.hold_seconds + self.server.timeout_seconds
        is_url = question.get("mode") == "url"
        try:
            if is_url:
                value = _url_value(self.server, question)
                response = await self.ctx.render(
                    kind="url", message=question["message"], value=value, intent=HELD_INTENT
                )
            else:
                response = await _ask(self.ctx, question, intent=HELD_INTENT)
        except Suspended as suspended:
            await self._show_status()  # a question waits: the run no longer says it works
            response = await self._wait(suspended.args[0])
            await self._show_status()
        if is_url and response is not None and response.accepted:
            await self._show_wait(question)
        self.scope.deadline = anyio.current_time() + self.server.timeout_seconds
        if response is None:
            minutes = f"{self.server.hold_minutes:g} minute(s)"
            self.failure = (
                f"No answer within {minutes}: {self.server.display_name} could not wait longer "
                "on its live session, so the question was cancelled and the tool call ended."
            )
            self.scope.cancel()
            return ElicitResult(action="cancel")
        return elicit_result(response)

    async def _show_wait(self, question: dict) -> None:
        """After Open: the wait card, settled by the server's notification or the result."""
        value = _url_value(self.server, question)
        try:
            await self.ctx.render(
                kind="url-wait", message=WAIT_MESSAGE, value=value, intent=HELD_INTENT
            )
        except Suspended as suspended:
            self.url_waits.append(suspended.args[0])

    async def _wait(self, part_id: int) -> Response | None:
        self.waiting.append(part_id)

        async def settled() -> Part | None:
            part = await Part.objects.aget(pk=part_id)
            return None if part.is_pending else part

        part = await wait_in_group(part_group(part_id), settled, self.hold_seconds)
        if part is None:
            return None  # still waiting: `close` cancels it
        self.waiting.remove(part_id)
        # The session delivers the answer now (a replay marks this for the other sources).
        await Part.objects.filter(pk=part_id).aupdate(resumed_at=timezone.now())
        return Response.from_part(part)

    async def _show_status(self) -> None:
        conversation = self.ctx.conversation
        await push_html(conversation.pk, await sync_to_async(render_status)(conversation))

    async def close(self, problem: str) -> None:
        """Cancel, with a note, any question still waiting when the session ended."""
        with anyio.CancelScope(shield=True):
            reason = self.failure or (
                f"The session ended before this question was answered: {problem}"
            )
            for part_id in list(self.waiting):
                await _cancel_with_note(self.ctx, part_id, reason)
            for part_id in self.url_waits:  # the call is over: nothing left to wait for
                part = await Part.objects.aget(pk=part_id)
                if part.is_pending:
                    await sync_to_async(settle_part)(part, dict(url_wait.COMPLETED))


def _stranded_questions(ctx: TurnContext) -> list[Part]:
    """Return questions an earlier run of this call asked on a session that is gone.

    This round has no record, so any held question at or after its index comes from a run that
    died while the question waited (a restart of the playground). Read with the turn's records
    (a warm call makes no query for it).
    """
    return ctx.recorded_parts(HELD_INTENT)


async def _abandon(ctx: TurnContext, server: ServerConfig, stranded: list[Part]) -> str:
    reason = (
        f"The playground restarted while {server.display_name} waited for this answer on a live "
        "session; that session is gone, so the question was cancelled and the tool call ended."
    )
    ctx.skip_to(stranded[-1].call_index + 1)
    for part in stranded:
        if part.is_pending:
            await sync_to_async(settle_part)(part, contract.cancel())
    await ctx.note(reason)
    return reason


async def _cancel_with_note(ctx: TurnContext, part_id: int, reason: str) -> None:
    part = await Part.objects.aget(pk=part_id)
    if part.is_pending and await sync_to_async(settle_part)(part, contract.cancel()):
        await ctx.note(reason)


def _json(model) -> dict:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)

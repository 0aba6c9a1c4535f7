"""Call a server's tool from a turn, and put the questions the server asks to the person.

`call_tool(ctx, server, tool, arguments)` returns `{"result": <CallToolResult JSON>}` or
`{"error": <text for the chat>}`. Each round trip to the server is a recorded step of the turn,
so a replay never calls the server again for a round it already made.

Durable on 2026-07-28 servers: a round that returns `InputRequiredResult` is recorded, its
questions become parts, and the run suspends holding nothing. After the answers the next round
opens a fresh connection with `input_responses` + `request_state`. When the server no longer
accepts that state (a new stdio process, a restart, an expired seal) the tool is called again
from the start and the questions it asks again are answered from the recorded answers (matched
by a digest of message and schema): the server re-runs its tool up to the question.

Legacy servers push `elicitation/create` on a live session: the session is held while the
question waits (up to the server's `hold_minutes`), the runner waiting on the part's channel
group. On timeout, a crash of the server or a restart of the playground the question is
cancelled with a note saying why, and the call reports the failure.
"""

import hashlib
import json
import math

import anyio
from asgiref.sync import sync_to_async
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, ElicitResult, ErrorData, InputRequiredResult

from elicitation import contract
from elicitation.models import Part
from elicitation.settle import settle_part
from mcp_bridge.connection import connect, describe_error
from mcp_bridge.servers import ServerConfig
from playground.part_waiting import announce_settled, part_group, wait_in_group
from playground.runtime import Response, Suspended, TurnContext

# Questions a held legacy session waits on (the only ones a restart can strand).
HELD_INTENT = "mcp_session"
ASKED_INTENT = "mcp_elicitation"
MAX_ROUNDS = 10
ACTIONS = ["accept", "decline", "cancel"]  # MCP has no prose reply


async def list_tools(server: ServerConfig) -> list[dict]:
    """Return the server's tools as JSON (name, title, description, inputSchema, annotations)."""
    async with connect(server) as client:
        listed = await client.list_tools()
    return [_json(tool) for tool in listed.tools]


async def call_tool(ctx: TurnContext, server: ServerConfig, tool: str, arguments: dict) -> dict:
    """Call `tool` with `arguments` within the turn of `ctx`; ask the person what it asks."""
    answers: dict[str, dict] = {}  # question digest -> ElicitResult JSON, for re-asked questions
    responses, state = None, None
    for _ in range(MAX_ROUNDS):
        outcome = await _round(ctx, server, tool, arguments, responses, state, answers)
        if "input_required" not in outcome:
            return outcome
        required = outcome["input_required"]
        responses = {}
        for key, request in (required.get("inputRequests") or {}).items():
            params = request.get("params") or {}
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
    if response.action in ("accept", "decline", "cancel"):
        content = response.content if response.action == "accept" else None
        return ElicitResult(action=response.action, content=content)
    return ErrorData(code=INVALID_PARAMS, message=response.text)


def wake_session(sender, part, html: str, **kwargs) -> None:
    """After a question a held session waits on settles: wake the runner holding it."""
    if part.intent == HELD_INTENT:
        announce_settled(part.pk)


async def _ask(ctx: TurnContext, params: dict, *, intent: str) -> Response:
    return await ctx.render(
        kind="elicitation",
        message=str(params.get("message", "")),
        data_schema=params.get("requestedSchema"),
        allowed_actions=ACTIONS,
        intent=intent,
    )


async def _round(ctx, server, tool, arguments, responses, state, answers) -> dict:
    ran = False

    async def send() -> dict:
        nonlocal ran
        ran = True
        outcome = await _send(ctx, server, tool, arguments, responses, state, answers)
        return outcome | {"next_call": ctx.call_index}

    outcome = await ctx.step(f"{server.name}: {tool}", send)
    if not ran:
        ctx.skip_to(outcome["next_call"])  # past the questions a held session asked
    return outcome


async def _send(ctx, server, tool, arguments, responses, state, answers) -> dict:
    if stranded := await _stranded_questions(ctx):
        return {"error": await _abandon(ctx, server, stranded)}
    session, result, problem = HeldSession(ctx, server), None, ""
    try:
        with session.scope:
            async with connect(server, elicitation_callback=session.answer) as client:
                result = await _call(client, server, tool, arguments, responses, state, answers)
    except Exception as error:
        problem = describe_error(server, error)
    finally:
        await session.close(problem)
    if session.failure or result is None:
        timed_out = f"{server.display_name} did not answer within {server.timeout_seconds:g} s."
        return {"error": session.failure or problem or timed_out}
    return _outcome(server, result)


async def _call(client, server, tool, arguments, responses, state, answers):
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

    def __init__(self, ctx: TurnContext, server: ServerConfig):
        self.ctx = ctx
        self.server = server
        self.hold_seconds = server.hold_minutes * 60
        self.scope = anyio.CancelScope(deadline=anyio.current_time() + server.timeout_seconds)
        self.waiting: list[int] = []
        self.failure = ""

    async def answer(self, context, params) -> ElicitResult | ErrorData:
        """The SDK's elicitation callback: ask the person and wait, holding the session."""
        if getattr(params, "mode", "form") != "form":
            return ErrorData(code=INVALID_PARAMS, message="URL-mode elicitation is not supported.")
        self.scope.deadline = anyio.current_time() + self.hold_seconds + self.server.timeout_seconds
        try:
            response = await _ask(self.ctx, _json(params), intent=HELD_INTENT)
        except Suspended as suspended:
            response = await self._wait(suspended.args[0])
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

    async def _wait(self, part_id: int) -> Response | None:
        self.waiting.append(part_id)

        async def settled() -> Part | None:
            part = await Part.objects.aget(pk=part_id)
            return None if part.is_pending else part

        part = await wait_in_group(part_group(part_id), settled, self.hold_seconds)
        if part is None:
            return None  # still waiting: `close` cancels it
        self.waiting.remove(part_id)
        return Response.from_part(part)

    async def close(self, problem: str) -> None:
        """Cancel, with a note, any question still waiting when the session ended."""
        with anyio.CancelScope(shield=True):
            reason = self.failure or (
                f"The session ended before this question was answered: {problem}"
            )
            for part_id in list(self.waiting):
                await _cancel_with_note(self.ctx, part_id, reason)


async def _stranded_questions(ctx: TurnContext) -> list[Part]:
    """Return questions an earlier run of this call asked on a session that is gone.

    This round has no record, so any held question at or after its index comes from a run that
    died while the question waited (a restart of the playground).
    """
    parts = Part.objects.filter(turn=ctx.turn, intent=HELD_INTENT, call_index__gte=ctx.call_index)
    return [part async for part in parts.order_by("call_index")]


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

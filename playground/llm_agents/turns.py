"""One turn of an LLM agent: the model's run, its questions, and the history it carries on.

The library's deferred tools end the model's run when it asks (`DeferredToolRequests`); each
question is then asked through the turn (`ctx.elicit`, `ctx.confirm`), which suspends the turn
until the person answers, and the run resumes with the answers (`DeferredToolResults`). A
replay repeats all of this from the turn's start, but every model request and tool call is a
recorded step, so nothing outside is called twice. The message history at the end of a turn is
recorded too: the next turn of the conversation starts from it.
"""

from asgiref.sync import sync_to_async
from django.conf import settings
from pydantic import TypeAdapter
from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, ToolDenied
from pydantic_ai.exceptions import (
    ModelAPIError,
    ModelConnectionError,
    ModelHTTPError,
    UnexpectedModelBehavior,
)
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter, ModelResponse
from pydantic_ai.models import Model
from pydantic_ai.tool_manager import ToolManager

from playground.connections import services
from playground.llm_agents.attached_images import with_images, without_images
from playground.llm_agents.recording import RecordedModel, dump_messages
from playground.llm_agents.tools import (
    REQUEST_CONNECTION,
    REQUEST_INPUT_TOOL,
    request_connection_tool,
    toolsets_for,
)
from playground.runs.models import Step, Turn
from playground.runs.runtime import ExplainedFault, Suspended, TurnContext
from playground.runs.steps import Outcome

HISTORY_STEP = "message history after the turn"
DEFERRED = TypeAdapter(DeferredToolRequests)


class ProviderError(ExplainedFault):
    """The model provider failed in a way the person can act on; the message says how."""


async def run_llm_turn(
    ctx: TurnContext,
    model: Model,
    *,
    provider_label: str,
    provider_address: str = "",
    config: dict | None = None,
) -> None:
    """Answer the person's message with the model, asking through forms when it calls for one.

    `provider_label` names the provider in what the person reads ("Anthropic"); the address
    goes only to the admin's turn page, for staff. `config` stands in for the agent's own."""
    config = ctx.config if config is None else config
    history = ModelMessagesTypeAdapter.validate_python(
        await ctx.step(
            "message history before the turn",
            _history_before,
            ctx.turn.pk,
            describe=_count_messages,
            shown=False,
        )
    )
    sampling = {"temperature": float(config["temperature"])} if "temperature" in config else {}
    agent = Agent(
        RecordedModel(model, ctx),
        output_type=[str, DeferredToolRequests],
        instructions=config.get("instructions") or None,
        model_settings=sampling,
        deps_type=TurnContext,
        tools=[tool for tool in (REQUEST_INPUT_TOOL, await _connection_tool()) if tool],
        toolsets=await toolsets_for(ctx, config),
    )
    prompt, answers, messages = ctx.message, None, history
    while True:
        start, point = ctx.call_index, ctx.resume_point()
        if point is not None:  # a replay: this run asked, and what it came to was kept
            messages = messages + ModelMessagesTypeAdapter.validate_python(point["messages"])
            output = DEFERRED.validate_python(point["asked"])
        else:
            try:
                # One tool at a time: the turn's calls are numbered, and a replay must agree.
                with ToolManager.parallel_execution_mode("sequential"):
                    result = await agent.run(
                        prompt, message_history=messages, deferred_tool_results=answers, deps=ctx
                    )
            except (ModelAPIError, UnexpectedModelBehavior) as error:
                raise ProviderError(
                    explain(error, provider_label), address=provider_address
                ) from error
            output, before, messages = result.output, messages, result.all_messages()
        if not isinstance(output, DeferredToolRequests):
            break
        asks_at = ctx.call_index
        try:
            prompt, answers = None, await ask_the_person(ctx, output)
        except Suspended:
            # The question is shown: the usage so far is kept while it waits, and where the
            # run that asked ended, so the answer's replay picks up there (not rebuilding it
            # from its records: a replay's time grows with each question otherwise).
            kept = {}
            added = [] if point is not None else messages[len(before) :]
            if added and without_images(added) == added:  # (image bytes are never kept)
                asked = {
                    "messages": dump_messages(added),
                    "asked": DEFERRED.dump_python(output, mode="json"),
                }
                kept["resume_points"] = ctx.resume_points_with(start, asks_at, asked)
            await _save_turn(ctx.turn, messages[len(history) :], **kept)
            raise
    await _save_turn(ctx.turn, messages[len(history) :])
    # Kept for the next turn without the images answers carried (bytes never enter a step).
    await ctx.step(
        HISTORY_STEP,
        dump_messages,
        without_images(messages),
        describe=_count_messages,
        shown=False,
    )


async def ask_the_person(ctx: TurnContext, requests: DeferredToolRequests) -> DeferredToolResults:
    """Ask each deferred call through the turn; return the answers for the model."""
    answers = DeferredToolResults()
    for call in requests.approvals:
        args = call.args_as_dict()
        approved = await ctx.confirm(
            f"Allow {ctx.agent.name} to run {call.tool_name}?",
            details={name: str(value) for name, value in args.items()},
            action=call.tool_name,
        )
        answers.approvals[call.tool_call_id] = approved or ToolDenied(
            "The person did not approve this call; nothing was done."
        )
    for call in requests.calls:
        args = call.args_as_dict()
        if call.tool_name == REQUEST_CONNECTION:
            response = await ctx.request_connection(
                str(args.get("service", "")), reason=str(args.get("reason") or "") or None
            )
            answers.calls[call.tool_call_id] = response.envelope  # a reference, never a value
            continue
        response = await ctx.elicit(
            str(args.get("message", "")), args.get("requestedSchema"), id=call.tool_call_id
        )
        # The envelope carries file references; the images among them go to the model too.
        answers.calls[call.tool_call_id] = await with_images(ctx, response)
    return answers


async def _connection_tool():
    if not settings.CONNECTION_SERVICES_FILE:
        return None  # none declared, and no file to read off the event loop
    try:
        declared = await sync_to_async(services.load)()
    except services.ServicesFileError:
        declared = {}  # (the Connections page says what is wrong with the file)
    return request_connection_tool(declared)


def explain(error: Exception, provider_label: str) -> str:
    """Return what went wrong with the provider and what the person can do about it."""
    who = provider_label
    if isinstance(error, ModelHTTPError):
        status = error.status_code
        if status in (401, 403):
            return (
                f"{who} refused the API key (HTTP {status}). Whoever runs this playground should "
                "check the key (LLM_API_KEY, ANTHROPIC_API_KEY or LLM_PROVIDERS)."
            )
        if status == 404:
            return (
                f"{who} does not know this model (HTTP 404): edit the agent (at the top of its "
                "chat) and pick one of the models offered."
            )
        if status == 429:
            return (
                f"{who} is limiting requests (HTTP 429) and still was after retrying. "
                "Wait a minute, then send your message again."
            )
        if status >= 500:
            return (
                f"{who} failed (HTTP {status}) and still did after retrying. "
                "Send your message again in a moment."
            )
        return f"{who} refused the request (HTTP {status}): {error}"[:400]
    if isinstance(error, ModelConnectionError):
        return (
            f"{who} could not be reached or did not answer in time. Check that the server is "
            "running, then send your message again."
        )
    # A broken stream, a reply that is not JSON, a tool call beyond repair.
    reason = getattr(error, "message", "") or str(error)
    return (
        f"{who} sent a reply the playground could not use ({reason}). "
        "Send your message again, or make an agent with another model."
    )[:400]


def _history_before(turn_id: int) -> list:
    turn = Turn.objects.get(pk=turn_id)
    step = (
        Step.objects.filter(
            turn__conversation_id=turn.conversation_id,
            turn__index__lt=turn.index,
            name=HISTORY_STEP,
            status__in=Step.RECORDED,
        )
        .order_by("-turn__index")
        .first()
    )
    return step.result if step else []


def _count_messages(messages: list) -> Outcome:
    # (Not the messages themselves: describing them all took longer than the model request.)
    return Outcome(f"{len(messages)} messages")


async def _save_turn(turn: Turn, messages: list[ModelMessage], **fields) -> None:
    """Keep the turn's token usage and `fields`, writing only what changed (a replay's first
    run came to what the turn has)."""
    responses = [message for message in messages if isinstance(message, ModelResponse)]
    fields |= {
        "input_tokens": sum(response.usage.input_tokens for response in responses),
        "output_tokens": sum(response.usage.output_tokens for response in responses),
    }
    changed = {name: value for name, value in fields.items() if getattr(turn, name) != value}
    if changed:
        await Turn.objects.filter(pk=turn.pk).aupdate(**changed)
        for name, value in changed.items():
            setattr(turn, name, value)

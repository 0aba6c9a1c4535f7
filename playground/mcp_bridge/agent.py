"""The bridge as an agent: a conversation with an MCP server lists its tools, lets the person
pick one and fill its arguments (or type `tool_name {json}`), calls it, and shows the result.

Every configured server is an Agent row of kind "mcp" whose config names the server
(see `catalog`); nothing else about the server is stored.
"""

import difflib
import json
import re

from asgiref.sync import sync_to_async

from elicitation import contract
from elicitation.models import Part
from elicitation.settle import settle_part
from playground.connections.services import ServicesFileError, UnknownServiceError
from playground.mcp_bridge import servers
from playground.mcp_bridge.catalog import KIND, SERVERS
from playground.mcp_bridge.credentials import with_person_credential
from playground.mcp_bridge.results import describe_tool_list, show_outcome
from playground.mcp_bridge.tool_forms import ask_arguments, check_json_arguments
from playground.runs.agents import agent
from playground.runs.runtime import TurnContext

PICK_INTENT = "mcp_pick_tool"
DIRECT_CALL = re.compile(r"^\s*([A-Za-z0-9_.\-/]+)\s*(\{.*\})?\s*$", re.DOTALL)


@agent(
    KIND,
    name="MCP server",
    description="Calls an MCP server's tools.",
    listed=False,
    available_to=SERVERS.available_to,
    opens_conversation=True,  # the tools card is there before the person writes
    shows_wire=True,
)
async def mcp_server(ctx: TurnContext, message: str) -> None:
    server, problem = await SERVERS.usable(ctx)
    if problem:
        await ctx.report_error(problem)
        return
    try:
        personal = await with_person_credential(ctx, server)
    except (UnknownServiceError, ServicesFileError) as error:
        await ctx.report_error(str(error))
        return
    if personal is None:
        await ctx.say(f"Not connected, so {server.display_name} was not called.")
        return
    server = personal
    await _close_earlier_pickers(ctx)
    listed = await ctx.step(
        f"{server.name}: tools/list",
        _listed_tools,
        server,
        ctx.conversation.pk,
        arguments="",
        describe=describe_tool_list,
    )
    if "error" in listed:
        await ctx.report_error(listed["error"], address=server.target)
        return
    tools = {tool["name"]: tool for tool in listed["tools"]}
    if unknown := _unknown_tool(message, tools):
        await ctx.report_error(_no_such_tool(server, unknown, tools))
        return
    call = await _direct_call(ctx, message, tools) or await _picked_call(ctx, server, tools)
    if call is None:
        return
    name, arguments = call
    if (tools[name].get("annotations") or {}).get("destructiveHint") and not await ctx.confirm(
        f"Call {name} on {server.display_name}? The server marks it as destructive.",
        details={"Server": server.display_name, "Tool": name, "Arguments": json.dumps(arguments)},
        action=f"mcp:{server.name}:{name}",
    ):
        await ctx.say(f"{name} was not called.")
        return
    from playground.mcp_bridge.calls import (
        call_tool,  # the MCP SDK: imported when first used (`waking`)
    )

    outcome = await call_tool(ctx, server, name, arguments)
    await show_outcome(ctx, name, outcome, address=server.target)


async def _listed_tools(server: servers.ServerConfig, conversation_id: int) -> dict:
    from playground.mcp_bridge.calls import list_tools
    from playground.mcp_bridge.connection import describe_error

    try:
        return {"tools": await list_tools(server, conversation_id)}
    except Exception as error:
        return {"error": describe_error(server, error)}


async def _close_earlier_pickers(ctx: TurnContext) -> None:
    """A new message answers an earlier turn's "Which tool?": it is cancelled, not left waiting
    (a direct call, or the tools shown again with a picker of their own)."""
    earlier = Part.objects.filter(
        conversation=ctx.conversation, intent=PICK_INTENT, state=Part.State.PENDING
    )
    async for part in earlier.filter(turn__pk__lt=ctx.turn.pk):
        await sync_to_async(settle_part)(part, contract.cancel())


def _unknown_tool(message: str, tools: dict) -> str:
    """Return the tool name `message` asks for when the server has no such tool, else "".

    A message that only chats ("hi") shows the tools; one that names a tool (with arguments,
    punctuation of a tool name, or close to a real name) is told there is no such tool.
    """
    match = DIRECT_CALL.match(message)
    if match is None or match[1] in tools:
        return ""
    name = match[1]
    if match[2] or re.search(r"[_.\-/]", name) or difflib.get_close_matches(name, tools):
        return name
    return ""


def _no_such_tool(server: servers.ServerConfig, name: str, tools: dict) -> str:
    closest = difflib.get_close_matches(name, tools, n=3)
    if closest:
        return f"{server.display_name} has no tool named {name}. Closest: {', '.join(closest)}."
    return f"{server.display_name} has no tool named {name}. Say anything else to see its tools."


async def _direct_call(ctx: TurnContext, message: str, tools: dict) -> tuple[str, dict] | None:
    """Return the call `tool_name {json}` asks for (the JSON checked against the tool's schema)."""
    match = DIRECT_CALL.match(message)
    if match is None or match[1] not in tools:
        return None
    name = match[1]
    schema = tools[name].get("inputSchema") or {"type": "object"}
    arguments, problem = check_json_arguments(match[2] or "{}", schema)
    if problem:
        await ctx.report_error(f"Arguments for {name} refused: {problem}")
        return None
    return name, arguments


async def _picked_call(ctx, server, tools: dict) -> tuple[str, dict] | None:
    titled = any(t.get("title") for t in tools.values())  # (a Title column only if one has it)
    columns = ["Tool", "Title", "Description"] if titled else ["Tool", "Description"]
    rows = [
        [t["name"], *([t.get("title") or ""] if titled else []), t.get("description") or ""]
        for t in tools.values()
    ]
    await ctx.render(
        kind="display",
        message="Pick one below, or type tool_name {json} to call it directly.",
        value={
            "title": f"Tools of {server.display_name}",
            "table": {"columns": columns, "rows": rows},
        },
    )
    if not tools:
        await ctx.say(f"{server.display_name} has no tools.")
        return None
    options = [{"const": name, "title": t.get("title") or name} for name, t in tools.items()]
    picked = await ctx.elicit(
        f"Which tool of {server.display_name} should I call?",
        {
            "type": "object",
            "properties": {"tool": {"type": "string", "title": "Tool", "oneOf": options}},
            "required": ["tool"],
        },
        allowed_actions=["accept"],
        intent=PICK_INTENT,
    )
    if not picked.accepted:
        return None
    name = picked.content["tool"]
    arguments = await ask_arguments(ctx, tools[name])
    return None if arguments is None else (name, arguments)

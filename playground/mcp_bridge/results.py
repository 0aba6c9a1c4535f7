"""Show a tool's result in the chat: text as the text it is (JSON keeps its escapes), as
markdown only where the server says it is (a `text/markdown` resource), structured content and
images as cards, links only when they are http(s) without credentials, and an error result as
a clear error. Also how a round trip to the server reads as a step, with the raw result beside
it."""

import json
from urllib.parse import urlsplit

from playground.runs.runtime import TurnContext
from playground.runs.steps import Outcome

MAX_IMAGE_BYTES = 256_000
IMAGE_TYPES = {"image/png", "image/jpeg", "image/gif", "image/webp"}


async def show_outcome(ctx: TurnContext, tool: str, outcome: dict, *, address: str = "") -> None:
    """Show what calling `tool` came to: its result, or why there is none (the server's
    `address` kept for staff when the call failed)."""
    if "error" in outcome:
        await ctx.report_error(f"Calling {tool} failed: {outcome['error']}", address=address)
        return
    result = outcome["result"]
    blocks = result.get("content") or []
    texts = [block.get("text", "") for block in blocks if block.get("type") == "text"]
    if result.get("isError"):
        await ctx.report_error(f"{tool} reported an error: {' '.join(texts) or 'no details'}")
        return
    for block in blocks:
        await _show_block(ctx, tool, block)
    structured = result.get("structuredContent")
    # The SDK wraps a plain string result as {"result": text}: no card to repeat the text.
    if structured is not None and structured != {"result": "".join(texts)}:
        await ctx.render(
            kind="display",
            value={"title": f"Result of {tool}", "fields": _fields(structured)},
        )
    if not blocks and structured is None:
        await ctx.say(f"{tool} returned nothing.")


async def _show_block(ctx: TurnContext, tool: str, block: dict) -> None:
    kind = block.get("type")
    if kind == "text":
        await ctx.say(block.get("text", ""), markdown=False)
    elif kind == "image":
        await _show_image(ctx, tool, block)
    elif kind == "resource_link":
        await ctx.say(link_markdown(block.get("uri", ""), block.get("name") or "link"))
    elif kind == "resource" and "text" in (resource := block.get("resource") or {}):
        markdown = resource.get("mimeType") == "text/markdown"
        await ctx.say(resource["text"], markdown=markdown)
    else:
        await ctx.say(f"({tool} returned {kind or 'unknown'} content, which is not shown here.)")


async def _show_image(ctx: TurnContext, tool: str, block: dict) -> None:
    mime, data = block.get("mimeType", ""), block.get("data", "")
    if mime not in IMAGE_TYPES or len(data) * 3 // 4 > MAX_IMAGE_BYTES:
        await ctx.say(f"({tool} returned an image of type {mime or 'unknown'} that is not shown.)")
        return
    image = {"src": f"data:{mime};base64,{data}", "alt": f"Image from {tool}"}
    await ctx.render(kind="display", value={"title": f"Image from {tool}", "image": image})


def link_markdown(uri: str, name: str) -> str:
    """Return a markdown link for an http(s) URL without credentials, else say why there is none."""
    parts = urlsplit(uri)
    if parts.scheme not in ("http", "https") or not parts.hostname or "@" in parts.netloc:
        return f"(A link to {_plain(name)} was not shown: only http and https links are.)"
    return f"[{_plain(name)}](<{uri.replace('>', '%3E').replace(' ', '%20')}>)"


def _plain(text: str) -> str:
    """Return text with markdown's link punctuation escaped."""
    return "".join("\\" + char if char in "[]()<>\\`*_" else char for char in str(text))


def _fields(structured) -> list[dict]:
    if not isinstance(structured, dict):
        return [{"label": "Value", "value": json.dumps(structured, ensure_ascii=False)}]
    return [
        {"label": str(key), "value": v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}
        for key, v in list(structured.items())[:200]
    ]


def describe_round(outcome: dict) -> Outcome:
    """Return how a round trip of a tool call went, as its step in the chat shows it."""
    if "error" in outcome:
        return Outcome(outcome["error"], failed=True)
    if "url_required" in outcome:
        return Outcome("The server needs a page opened first.")
    if "input_required" in outcome:
        asked = len((outcome["input_required"] or {}).get("inputRequests") or {})
        return Outcome(f"The server asked {asked} question{'s' if asked != 1 else ''}.")
    result = outcome.get("result") or {}
    blocks = result.get("content") or []
    texts = [block.get("text", "") for block in blocks if block.get("type") == "text"]
    kinds = [block.get("type", "unknown") for block in blocks if block.get("type") != "text"]
    shown = " ".join(texts) + "".join(f" ({kind} content)" for kind in kinds)
    if not shown.strip() and result.get("structuredContent") is not None:
        shown = json.dumps(result["structuredContent"], ensure_ascii=False)
    if result.get("isError"):
        text = f"The tool reported an error: {shown.strip() or 'no details'}"
        return Outcome(text, failed=True, raw=result)
    return Outcome(shown.strip() or "Returned nothing.", raw=result)


def describe_tool_list(listed: dict | list) -> Outcome:
    """Return how listing a server's tools went: their names, or the error."""
    if isinstance(listed, dict) and "error" in listed:
        return Outcome(listed["error"], failed=True)
    tools = listed.get("tools", []) if isinstance(listed, dict) else listed
    if not tools:
        return Outcome("No tools.")
    names = ", ".join(tool.get("name", "") for tool in tools)
    return Outcome(f"{len(tools)} tool{'s' if len(tools) != 1 else ''}: {names}")

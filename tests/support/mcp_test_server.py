"""An MCP server written with the official SDK, for the bridge's tests: over stdio
(`python tests/support/mcp_test_server.py`) or Streamable HTTP (`... http PORT`, or `...
stateless-http
PORT` for a server that keeps no session).

`MCP_TEST_LOG`, when set, names a file each completed `profile` call appends a line to, so a
test can see how many times the tool really ran to the end (and `legacy_profile` a line
"legacy asking" each time it starts).
"""

import datetime
import hashlib
import os
import sys
import threading
from typing import Annotated, Literal

import anyio
from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.shared.exceptions import UrlElicitationRequiredError
from mcp_types import (
    CallToolResult,
    ElicitRequest,
    ElicitRequestURLParams,
    EmbeddedResource,
    ImageContent,
    InputRequiredResult,
    ResourceLink,
    TextContent,
    TextResourceContents,
    ToolAnnotations,
)
from pydantic import AnyUrl, BaseModel, EmailStr, Field

server = MCPServer("test-server")

PIXEL = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAF"
    "BQIAX8jx0gAAAABJRU5ErkJggg=="
)


class Profile(BaseModel):
    name: str = Field(description="Your name")
    age: int = Field(ge=0, le=150)
    height: float = Field(description="Height in metres")
    subscribe: bool = False
    plan: Literal["free", "pro"] = "free"
    topics: list[Literal["news", "sport", "music"]] = Field(default_factory=list)
    nickname: str | None = None
    email: EmailStr
    birthday: datetime.date
    homepage: AnyUrl | None = None


class Secret(BaseModel):
    password: str


def ask_profile() -> Elicit[Profile]:
    return Elicit("Tell me about yourself", Profile)


def record_completion(line: str = "profile") -> None:
    if log := os.environ.get("MCP_TEST_LOG"):
        with open(log, "a") as file:
            file.write(line + "\n")


@server.tool()
def echo(text: str) -> str:
    """Say the text back."""
    return text


@server.tool()
async def profile(
    answer: Annotated[ElicitationResult[Profile], Resolve(ask_profile)],
) -> str:
    """Ask for a profile (durable on 2026-07-28 connections) and describe it."""
    if not isinstance(answer, AcceptedElicitation):
        return f"No profile: {answer.action}"
    record_completion()
    return "Profile: " + answer.data.model_dump_json()


@server.tool()
async def legacy_profile(ctx: Context) -> str:
    """Ask for a profile with a push-style elicitation/create (legacy sessions only)."""
    record_completion("legacy asking")  # each start, also one that cannot ask
    answer = await ctx.elicit("Tell me about yourself", Profile)
    if answer.action != "accept":
        return f"No profile: {answer.action}"
    record_completion()
    return "Profile: " + answer.data.model_dump_json()


@server.tool()
async def ask_secret(ctx: Context) -> str:
    """Ask for a password in a form (which clients must refuse)."""
    answer = await ctx.elicit("Your password, please", Secret)
    return f"Secret: {answer.action}"


@server.tool()
async def legacy_login(ctx: Context) -> str:
    """Send the person to a page (URL mode on a legacy session), then say it is done."""
    opened = await ctx.elicit_url(
        "Sign in at the test page", "https://example.com/login", "login-1"
    )
    if opened.action == "accept":
        await ctx.session.send_elicit_complete("login-1")
    return f"Login: {opened.action}"


@server.tool()
async def login(ctx: Context) -> str | InputRequiredResult:
    """Send the person to a page (URL mode in an InputRequiredResult, 2026-07-28)."""
    answered = (ctx.input_responses or {}).get("login")
    if answered is not None:
        return f"Login: {answered.action}"
    page = ElicitRequestURLParams(
        message="Sign in at the test page", url="https://example.com/login"
    )
    return InputRequiredResult(input_requests={"login": ElicitRequest(params=page)})


@server.tool()
def needs_login() -> str:
    """Refuse with -32042 (URL elicitation required) until the login page was opened once."""
    marker = os.environ.get("MCP_TEST_LOG", "") + ".login"
    if not os.path.exists(marker):
        open(marker, "w").close()
        page = ElicitRequestURLParams(
            message="Sign in first", url="https://example.com/login", elicitation_id="login-2"
        )
        raise UrlElicitationRequiredError([page])
    return "Logged in earlier."


@server.tool()
async def crash(ctx: Context) -> str:
    """Ask a question, then die (in two seconds) before the answer arrives."""
    threading.Timer(2.0, os._exit, [3]).start()
    await ctx.elicit("Tell me about yourself", Profile)
    return "not reached"


@server.tool(annotations=ToolAnnotations(destructive_hint=True))
def delete_everything(confirm_name: str) -> str:
    """Delete every record (destructive)."""
    return f"Deleted everything in {confirm_name}."


@server.tool()
def weather(city: str, days: int = 1, units: Literal["metric", "imperial"] = "metric") -> dict:
    """Return a forecast as structured content."""
    return {"city": city, "days": days, "units": units, "forecast": "sunny"}


class Forecast(BaseModel):
    city: str
    temperatures: list[int]


@server.tool()
def forecast(city: str) -> Forecast:
    """Return a forecast as structured content (a model)."""
    return Forecast(city=city, temperatures=[18, 21])


@server.tool()
def configure(settings: dict[str, int], tags: list[str]) -> str:
    """Take nested arguments (the chat shows a JSON field for these)."""
    return f"Configured {len(settings)} settings and {len(tags)} tags."


@server.tool()
def rich() -> CallToolResult:
    """Return text, an image, a safe link, a hostile link and HTML."""
    return CallToolResult(
        content=[
            TextContent(type="text", text="**Bold** and <script>alert(1)</script>"),
            ImageContent(type="image", data=PIXEL, mime_type="image/png"),
            ResourceLink(type="resource_link", uri="https://example.com/report", name="report"),
            ResourceLink(type="resource_link", uri="javascript:alert(1)", name="evil"),
        ]
    )


@server.tool()
def report() -> CallToolResult:
    """Return JSON as text (its escapes are part of it) and a markdown document."""
    notes = TextResourceContents(uri="file:///notes.md", mime_type="text/markdown", text="**Done**")
    return CallToolResult(
        content=[
            TextContent(type="text", text='{"say": "\\"hi\\"", "path": "C:\\\\temp"}'),
            EmbeddedResource(type="resource", resource=notes),
        ]
    )


@server.tool()
def fails() -> CallToolResult:
    """Return an error result."""
    full = TextContent(type="text", text="The disk is full.")
    return CallToolResult(content=[full], is_error=True)


@server.tool()
async def forever() -> str:
    """Never answer."""
    await anyio.sleep_forever()
    return "not reached"


@server.tool()
def connect_database(host: str, password: str) -> str:
    """Take a password as an argument (which the chat must not collect)."""
    return f"Connected to {host}."


@server.tool()
def authorization(ctx: Context) -> str:
    """Say which Authorization header the request came with, as a digest (over HTTP)."""
    header = (ctx.headers or {}).get("authorization")
    if header is None:
        return "Authorization: none"
    # Only a digest: the result is stored in the chat, and the header is a secret.
    return "Authorization: sha256 " + hashlib.sha256(header.encode()).hexdigest()


@server.tool()
def capabilities(ctx: Context) -> str:
    """Say which capabilities the client declared, as JSON."""
    declared = ctx.client_capabilities
    return declared.model_dump_json(by_alias=True, exclude_none=True) if declared else "none"


@server.tool()
def huge() -> str:
    """Return about 10 MB of text."""
    return "x" * 10_000_000


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    elif sys.argv[1:2] == ["stateless-http"]:  # no session, so no back-channel at all
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]), stateless_http=True)
    else:
        server.run("stdio")

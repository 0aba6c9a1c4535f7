"""POST one run to an AG-UI agent and read its server-sent events (httpx and httpx-sse).

`run_once` returns the run as recorded (`RunReader.outcome`): every event it sent, what the
chat shows, and an `error` naming the problem when the run failed (refused, TLS, HTTP status,
not AG-UI, a bad event, a limit). Limits are settings: AGUI_MAX_EVENT_BYTES per event,
AGUI_MAX_EVENTS and AGUI_RUN_SECONDS per run. `on_text` is told the text so far as it streams;
`wire` is told the run input and each event as they travel (the conversation's Wire panel).
"""

import asyncio
import json
import ssl
import weakref
from collections.abc import Awaitable, Callable

import httpx
from django.conf import settings
from httpx_sse import SSEError, aconnect_sse

from playground.agui.agents_file import AguiAgentConfig
from playground.agui.protocol import BadStream, RunReader
from playground.agui.wire import AguiWireLog, opening

OnText = Callable[[str], Awaitable[None]]

# One HTTP client per event loop: making one (its TLS context) took longer than a local
# agent's whole run, and its pool keeps the connection open for the next run. A client's
# connections belong to the loop they were opened on; a loop that is gone takes its client.
_CLIENTS: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient]" = (
    weakref.WeakKeyDictionary()
)


def _client() -> httpx.AsyncClient:
    loop = asyncio.get_running_loop()
    client = _CLIENTS.get(loop)
    if client is None or client.is_closed:
        client = _CLIENTS[loop] = httpx.AsyncClient()
    return client


async def run_once(
    agent: AguiAgentConfig,
    body: dict,
    *,
    on_text: OnText | None = None,
    wire: AguiWireLog | None = None,
    resumed: dict[str, dict] | None = None,
) -> dict:
    """Run the agent once with `body` (a RunAgentInput); return the recorded run. `resumed`
    are the calls its resume entries let it end (see `RunReader`)."""
    reader = RunReader(
        state=body.get("state"), max_events=settings.AGUI_MAX_EVENTS, resumed=resumed
    )
    try:
        async with asyncio.timeout(settings.AGUI_RUN_SECONDS):
            await _stream(agent, body, reader, on_text, wire)
    except BadStream as error:
        reader.fail(f"{agent.display_name} sent a bad stream: {error}.")
    except TimeoutError:
        reader.fail(
            f"{agent.display_name} did not finish its run within "
            f"{settings.AGUI_RUN_SECONDS:g} seconds (AGUI_RUN_SECONDS)."
        )
    except httpx.HTTPError as error:
        reader.fail(describe_error(agent, error))
    outcome = reader.outcome()
    if wire is not None and outcome["error"]:
        wire.event(f"The run failed: {outcome['error']}")
    return outcome


async def _stream(agent, body, reader: RunReader, on_text: OnText | None, wire) -> None:
    headers = {
        **agent.header_values(),
        "Accept": "text/event-stream",
        "Content-Type": "application/json",
    }
    content = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    if wire is not None:
        wire.event(opening(agent, body["runId"]))
        wire.sent(content)
    limit = settings.AGUI_MAX_EVENT_BYTES
    async with aconnect_sse(
        _client(),
        "POST",
        agent.url,
        content=content.encode(),
        headers=headers,
        timeout=agent.timeout_seconds,
    ) as source:
        response = source.response
        if wire is not None:
            wire.event(
                f"HTTP {response.status_code}, "
                f"{response.headers.get('content-type') or 'no content type'}."
            )
        if response.status_code >= 400:
            raise httpx.HTTPStatusError("", request=response.request, response=response)
        kind = response.headers.get("content-type", "").split(";")[0].strip()
        if kind != "text/event-stream":
            raise BadStream(
                f"it answered with {kind or 'no content type'}, not an event stream "
                "(is this an AG-UI endpoint?)"
            )
        shown = ""
        try:
            async for event in source.aiter_sse():
                if wire is not None:
                    wire.received(event.data)
                if len(event.data.encode()) > limit:
                    raise BadStream(
                        f"an event of {len(event.data.encode()):,} bytes is over the limit "
                        f"of {limit:,} bytes (AGUI_MAX_EVENT_BYTES)"
                    )
                reader.feed(event.data)
                if on_text is not None and reader.text != shown:
                    shown = reader.text
                    await on_text(shown)
                if reader.finished:
                    return
        except SSEError as error:
            raise BadStream(f"not a server-sent event stream ({error})") from None


def describe_error(agent: AguiAgentConfig, error: Exception) -> str:
    """Return what went wrong reaching the agent, for the person (refused, TLS, status).

    Never its address: every chat user reads this (staff find it on the admin's turn page)."""
    who = agent.display_name
    if isinstance(error, httpx.HTTPStatusError):
        status = error.response.status_code
        if status in (401, 403):
            return f"{who} refused the credentials (HTTP {status}): check its headers."
        if status == 404:
            return f"{who} answered HTTP 404: no AG-UI endpoint at that URL."
        if status == 422:
            return f"{who} did not accept the run input (HTTP 422): is it an AG-UI 1.0 agent?"
        return f"{who} answered HTTP {status}."
    if isinstance(error, httpx.ConnectError):
        if isinstance(error.__context__, ssl.SSLError) or "SSL" in str(error):
            return f"{who}: the TLS handshake failed ({error})."
        return f"{who} refused the connection: is it running?"
    if isinstance(error, httpx.TimeoutException):
        return f"{who} did not answer within {agent.timeout_seconds:g} seconds."
    if isinstance(error, httpx.RemoteProtocolError):
        return f"{who} cut the stream mid-run ({error}); send your message again to retry."
    return f"{who}: {type(error).__name__}: {error}"

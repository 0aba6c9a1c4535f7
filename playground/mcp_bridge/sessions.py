"""Live sessions with MCP servers, kept open between calls while they are useful.

Opening a session costs a process start (stdio) or an HTTP session and a handshake, and some
servers recognise the retry after a -32042 only in the session that raised it (the reference
server does), so a conversation's tool listings, calls and retries share one session, as in
the Inspector. One per (server, conversation, credential) in this process:

- kept open `idle_minutes` after its last use, at most `max_sessions` per server (the least
  recently used idle one makes room; when every one is busy, the extra one closes after its
  call);
- closed at its idle limit even while a question outside a call (a URL card) waits, when the
  server stops sending (its process exited) or a call on it fails (crashed, timed out), when
  the server's settings or credential (its header values and environment) change, when the
  connection it was opened with is revoked (at once, in every process: `revoked`), and with
  the event loop that runs it (a stopping `worker`; a stopped web process's stdio
  servers see their stdin close).

Nothing depends on a session surviving: a call on a new session is what happened before this
cache, and a restart recovers the same way. A session is a task on the event loop that waits
on an event: it holds no thread, and a call waiting on a person holds only its own session
(another call of the same conversation meanwhile gets a session of its own).
"""

import asyncio
import contextlib
import hashlib
import json
import logging
import math
from collections.abc import AsyncIterator
from typing import Protocol
from weakref import WeakKeyDictionary

import anyio
from asgiref.sync import sync_to_async
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CONNECTION_CLOSED,
    REQUEST_TIMEOUT,
    ElicitCompleteNotification,
    ToolListChangedNotification,
)

from elicitation.kinds import url_wait
from elicitation.settle import settle_part
from playground.mcp_bridge import revoked
from playground.mcp_bridge.connection import connect, protocol_for, refusal
from playground.mcp_bridge.servers import ServerConfig

logger = logging.getLogger(__name__)

# Errors after which a session is not trusted again; any other error response came from a
# server that is still there and still speaking MCP.
BROKEN = {CONNECTION_CLOSED, REQUEST_TIMEOUT}


class Questions(Protocol):
    """Who answers the server's questions during a call (see `calls.HeldSession`)."""

    async def answer(self, context, params): ...


class LiveSession:
    """One open session: its client, and whether a call is using it."""

    def __init__(self, server: ServerConfig, conversation_id: int, pool: dict, opened_with: tuple):
        self.server = server
        self.conversation_id = conversation_id
        self.identity, self.connection_id = opened_with
        self.loop = asyncio.get_running_loop()
        self.client: Client | None = None
        self.questions: Questions | None = None
        self.tools: list | None = None  # its `tools/list`, until the server says they changed
        self.busy = False
        self.reused = False
        self.stopping = False
        self.last_used = anyio.current_time()
        self._pool = pool
        self._wake = anyio.Event()
        self._task: asyncio.Task | None = None
        revoked.opened(self)

    @property
    def key(self) -> tuple[str, int]:
        return (self.server.name, self.conversation_id)

    async def open(self) -> None:
        """Connect in a task of its own (the SDK's scopes live there); raise what `connect` did."""
        ready = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._run(ready))
        try:
            await ready
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Have the session's task close it (at once; nothing here waits)."""
        self.stopping = True
        if self._pool.get(self.key) is self:
            del self._pool[self.key]
        self._wake.set()

    def release(self, *, keep: bool) -> None:
        """A call is done with the session: keep it warm, or close it."""
        self.busy, self.questions = False, None
        self.last_used = anyio.current_time()
        if keep and self._pool.get(self.key) is self:
            self._wake.set()  # its idle time starts now
        else:
            self.close()

    async def _run(self, ready: asyncio.Future) -> None:
        try:
            async with connect(
                self.server,
                elicitation_callback=self._answer,
                message_handler=self._notified,
                log_to=self.conversation_id,
                ended=self.close,  # the server stopped sending: not to be used again
            ) as client:
                self.client = client
                if not ready.done():
                    ready.set_result(None)
                await self._stay_open()
        except Exception as error:
            if not ready.done():
                ready.set_exception(error)
            else:
                logger.info("MCP session with %s ended: %r", self.server.name, error)
        finally:
            revoked.closed(self)
            self.close()

    async def _stay_open(self) -> None:
        while not self.stopping:
            self._wake = anyio.Event()
            left = math.inf
            if not self.busy:
                left = self.last_used + self.server.idle_minutes * 60 - anyio.current_time()
                if left <= 0:
                    self.close()  # idle for its limit: out of the pool before it closes
                    return
            with anyio.move_on_after(left):
                await self._wake.wait()

    async def _answer(self, context, params):
        if self.questions is None:  # a question outside a call
            return refusal(self.server)
        return await self.questions.answer(context, params)

    async def _notified(self, message) -> None:
        """`notifications/elicitation/complete` ends the wait of this conversation's URL card,
        during a call or between calls (a -32042 page finished); `notifications/tools/
        list_changed` has the tools listed again."""
        if isinstance(message, ToolListChangedNotification):
            self.tools = None
        if isinstance(message, ElicitCompleteNotification):
            waits = url_wait.waiting_for(message.params.elicitation_id)
            async for part in waits.filter(conversation_id=self.conversation_id):
                await sync_to_async(settle_part)(part, dict(url_wait.COMPLETED))


# One pool per event loop: a session's task and streams belong to the loop that opened it.
_pools: WeakKeyDictionary[asyncio.AbstractEventLoop, dict] = WeakKeyDictionary()


@contextlib.asynccontextmanager
async def session(
    server: ServerConfig, conversation_id: int | None, questions: Questions | None = None
) -> AsyncIterator[LiveSession]:
    """Yield a live session for one call in `conversation_id`, its questions to `questions`.

    Without a conversation (a listing for no one in particular) the session is opened for
    this use only.
    """
    if conversation_id is None:
        callback = questions.answer if questions else None
        async with connect(server, elicitation_callback=callback) as client:
            yield _Once(client)
        return
    live = await _checkout(server, conversation_id)
    live.questions = questions
    keep = False
    try:
        yield live
        keep = True
    except MCPError as error:
        keep = error.code not in BROKEN
        raise
    finally:
        live.release(keep=keep)


async def identity(server: ServerConfig) -> tuple[str, str | None]:
    """Return a digest of what a session is opened with (the settings, protocol and
    credential), and the id of the person's connection it uses, if any.

    A person's own credential is opened here too, so a revoked or replaced connection never
    reaches the server again through a session opened before."""
    opened_with, connection_id = [repr(server), protocol_for(server), server.header_values()], None
    opened_with.append(server.environment())
    if server.credential is not None:
        credential = await server.credential()
        opened_with += [credential.headers(), credential.environment()]
        connection_id = credential.connection_id
    digest = hashlib.sha256(json.dumps(opened_with, sort_keys=True).encode()).hexdigest()
    return digest, connection_id


class _Once:
    def __init__(self, client: Client):
        self.client, self.reused, self.tools = client, False, None


async def _checkout(server: ServerConfig, conversation_id: int) -> LiveSession:
    opened_with = await identity(server)  # before the lookup: no await between it and `busy`
    pool = _pools.setdefault(asyncio.get_running_loop(), {})
    live = pool.get((server.name, conversation_id))
    if live is not None and (live.stopping or live.identity != opened_with[0]):
        live.close()  # opened with other settings, another protocol or credential
        live = None
    if live is not None and not live.busy:
        live.busy, live.reused = True, True
        return live
    fresh = LiveSession(server, conversation_id, pool, opened_with)
    fresh.busy = True
    await fresh.open()
    if fresh.key not in pool and _make_room(pool, server):
        pool[fresh.key] = fresh  # else it closes after this call
    return fresh


def _make_room(pool: dict, server: ServerConfig) -> bool:
    mine = [live for live in pool.values() if live.server.name == server.name]
    if len(mine) < server.max_sessions:
        return True
    idle = sorted((live for live in mine if not live.busy), key=lambda live: live.last_used)
    if not idle:
        return False
    idle[0].close()
    return True

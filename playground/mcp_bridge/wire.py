"""Watch a connection's JSON-RPC messages: each one sent or received goes to the conversation's
wire (`playground.runs.wire`, the Wire panel), and the end of what the server sends (its process
exited, its stream closed) is told at once, so a kept session is not used again.

The SDK's client takes any transport (an async context manager yielding a read and a write
stream); `watched` wraps the real one and hands the SDK streams that pass every message on.
"""

from collections.abc import Callable
from contextlib import asynccontextmanager

import anyio
from mcp.shared.message import SessionMessage

from playground.runs.wire import WireLog


@asynccontextmanager
async def watched(transport, wire: WireLog | None, ended: Callable[[], None] | None):
    """Yield `transport`'s streams, logging to `wire` and calling `ended` when reading ends."""
    async with transport as (read, write):
        yield _Reading(read, wire, ended), _Writing(write, wire)


class _Passing:
    """A stream that passes everything else on to the real one."""

    def __init__(self, stream, wire: WireLog | None):
        self._stream, self._wire = stream, wire

    def __getattr__(self, name):  # `last_context` and the like, as the real stream has them
        return getattr(self._stream, name)

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self):
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, *exc_info):
        return await self._stream.__aexit__(*exc_info)


class _Reading(_Passing):
    def __init__(self, stream, wire: WireLog | None, ended: Callable[[], None] | None):
        super().__init__(stream, wire)
        self._ended = ended

    async def receive(self):
        try:
            item = await self._stream.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            # The server is gone (or the session is closing: telling it again is harmless).
            if self._ended is not None:
                self._ended()
            raise
        if self._wire is not None:
            if isinstance(item, SessionMessage):
                self._wire.received(item.message)
            else:
                self._wire.event(f"Transport error: {item!r}")
        return item

    def __aiter__(self):
        return self

    async def __anext__(self):
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


class _Writing(_Passing):
    async def send(self, item) -> None:
        if self._wire is not None and isinstance(item, SessionMessage):
            self._wire.sent(item.message)
        await self._stream.send(item)

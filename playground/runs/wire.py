"""The conversation's wire: the messages an agent source exchanged with its server (an MCP
server's JSON-RPC requests, responses, notifications and errors; an AG-UI agent's run inputs
and events), for the Wire panel.

Any agent source logs through a `WireLog` (the MCP bridge does; the AG-UI runner too, with a
`classify` of its own). A message is stored with secrets removed: the values of secret-named
keys, secret-looking text, and every value the log was told is secret (a header's value, a
credential) wherever it shows up. Logging holds up no call: a message is only noted as it
passes; a task of its own reads, redacts and writes the noted ones, in order, a batch at a
time, off the event loop, and a failed write is logged and dropped (the panel is for looking,
the call never depends on it).

A conversation keeps its newest `settings.WIRE_MESSAGES_KEPT` messages: the same task deletes
the older ones after every tenth of that many it wrote (so a conversation holds at most a tenth
more per connection logging to it, for a moment), in one query.
"""

import asyncio
import json
import logging
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Any

from django.conf import settings
from django.db import close_old_connections
from django.utils import timezone

from elicitation.secrets import REDACTED
from playground.runs.models import WireMessage
from playground.runs.steps import without_secrets

logger = logging.getLogger(__name__)
_WRITER = ThreadPoolExecutor(max_workers=2, thread_name_prefix="wire-log")

MAX_BODY = 20_000  # characters of a message kept for the panel (its size is the whole)
SHOWN = 200  # the panel shows the latest this many


class WireLog:
    """Log the messages of one connection of `conversation_id` with `source`."""

    def __init__(self, conversation_id: int, source: str, secrets: list[str] = ()):
        self.conversation_id = conversation_id
        self.source = source[:200]
        # Longest first, so a secret that contains another is removed whole.
        self.secrets = sorted({s for s in secrets if len(s) >= 4}, key=len, reverse=True)
        self._methods: dict[Any, str] = {}  # request id -> method, to name its response
        self._queued: list[tuple] = []
        self._writing: asyncio.Task | None = None
        self._untrimmed = 0  # written since the conversation's wire was last trimmed

    def sent(self, message: Any) -> None:
        """Log a message sent: a dict, a pydantic model of one, or the JSON text as it travelled
        (read later, off the event loop; its size is the text's)."""
        self._queue(WireMessage.Direction.SENT, message)

    def received(self, message: Any) -> None:
        self._queue(WireMessage.Direction.RECEIVED, message)

    def event(self, text: str) -> None:
        """Log something about the connection itself (opened, failed), as text."""
        self._queue(WireMessage.Direction.EVENT, text)

    def _queue(self, direction: str, message: Any) -> None:
        # Only noted here: the call goes on at once; the message is read and written later.
        self._queued.append((direction, message, timezone.now()))
        if self._writing is None or self._writing.done():
            self._writing = asyncio.get_running_loop().create_task(self._write())

    async def _write(self) -> None:
        while self._queued:
            batch, self._queued = self._queued, []
            # In a thread of its own: a write stalled on the database (a lock, a slow disk)
            # must not queue the run's own writes behind it, as the shared thread would.
            writing = _WRITER.submit(self._store_logged, batch)
            try:
                await asyncio.wrap_future(writing)
            except asyncio.CancelledError:
                # The loop is closing under the log (a turn run outside a server, as management
                # commands and tests run them): write the rest, in order, before it goes. If no
                # writer thread had started this batch, the cancellation cancelled its write
                # too (the last message was lost under load): it goes with the rest.
                wait([writing], timeout=30)
                rest = (batch if writing.cancelled() else []) + self._queued
                self._queued = []
                if rest:
                    wait([_WRITER.submit(self._store_logged, rest)], timeout=30)
                raise

    def _store_logged(self, batch: list[tuple]) -> None:
        try:
            self._store(batch)
        except Exception:  # the database is away: the call goes on without its log
            logger.warning("could not log %d wire messages", len(batch), exc_info=True)
        finally:
            # Between batches a writer thread holds no pooled connection (PostgreSQL's goes
            # back to the pool); a SQLite file's is kept, as opening it cost most of a batch.
            close_old_connections()

    def _store(self, batch: list[tuple]) -> None:
        rows = [self._row(direction, message, at) for direction, message, at in batch]
        WireMessage.objects.bulk_create(rows)
        self._untrimmed += len(rows)
        if self._untrimmed >= max(1, settings.WIRE_MESSAGES_KEPT // 10):
            self._untrimmed = 0
            trim(self.conversation_id)

    def _row(self, direction: str, message: Any, at) -> WireMessage:
        if direction == WireMessage.Direction.EVENT:
            kind, method, size, body = "event", "", len(message.encode()), message
        elif isinstance(message, str):  # the JSON text as it travelled
            size = len(message.encode())
            try:
                kind, method, body = self._described(json.loads(message))
            except ValueError:
                kind, method, body = "unreadable", "", without_secrets(message)
        else:
            if hasattr(message, "model_dump"):
                message = message.model_dump(mode="json", by_alias=True, exclude_unset=True)
            size = len(json.dumps(message, ensure_ascii=False, default=str).encode())
            kind, method, body = self._described(message)
        return WireMessage(
            conversation_id=self.conversation_id,
            source=self.source,
            direction=direction,
            kind=kind,
            method=method[:200],
            size=size,
            body=self._scrub(body),
            at=at,
        )

    def _described(self, message: Any) -> tuple[str, str, str]:
        kind, method = self.classify(message) if isinstance(message, dict) else ("other", "")
        body = json.dumps(without_secrets(message), ensure_ascii=False, indent=2, default=str)
        return kind, method, body

    def classify(self, message: dict) -> tuple[str, str]:
        """Return a message's kind and method, JSON-RPC's (another protocol's log overrides it)."""
        if "method" in message:
            if "id" in message:
                self._methods[message["id"]] = message["method"]
                return "request", message["method"]
            return "notification", message["method"]
        method = self._methods.pop(message.get("id"), "")
        return ("error" if "error" in message else "response"), method

    def _scrub(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, REDACTED)
        if len(text) > MAX_BODY:
            text = text[:MAX_BODY] + f"\n… ({len(text) - MAX_BODY:,} more characters not kept)"
        return text


def trim(conversation_id: int) -> None:
    """Delete the conversation's wire messages older than its newest `WIRE_MESSAGES_KEPT`."""
    rows = WireMessage.objects.filter(conversation_id=conversation_id)
    kept = rows.order_by("-id").values("id")[: settings.WIRE_MESSAGES_KEPT]
    rows.exclude(id__in=kept).delete()


def latest(conversation_id: int) -> list[WireMessage]:
    """Return the conversation's latest wire messages, oldest first."""
    rows = WireMessage.objects.filter(conversation_id=conversation_id).order_by("-id")[:SHOWN]
    return list(reversed(rows))

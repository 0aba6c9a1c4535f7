"""Close the sessions opened with a connection the moment it is revoked, in every process.

A kept session (`sessions`) would otherwise notice a revoked credential only at its next use
(opening the credential fails) or at its idle limit, its server running on meanwhile (a stdio
process started with the credential in its environment, an HTTP session opened with it).

Each open session is registered here with the connection it was opened with. When a connection
is deleted (the person revokes it, the provider refuses its grant, the admin or the account's
deletion takes it), this process closes its sessions once the deletion commits; on PostgreSQL
the deletion also sends `NOTIFY` with the connection's id, delivered with the commit, and every
process that keeps sessions (a scale-out `worker`, a web process) listens from its first
session on and closes its own. Other databases run one process (the embedded stack).
"""

import asyncio
from typing import Protocol

from django.db import connections, transaction

from playground.jobs import listen

CHANNEL = "mcp_connection_revoked"


class Opened(Protocol):
    connection_id: str | None
    loop: asyncio.AbstractEventLoop

    def close(self) -> None: ...


_open: set[Opened] = set()  # every session open in this process, on any loop


def opened(session: Opened) -> None:
    """Register `session` (from its start on; on PostgreSQL the process listens from then on,
    on its one LISTEN connection)."""
    _open.add(session)
    if listen.available():
        listen.subscribe({CHANNEL: _revoked})


def closed(session: Opened) -> None:
    _open.discard(session)


def close_opened_with(connection_id: str) -> None:
    """Close this process's sessions opened with connection `connection_id` (from any thread:
    each is closed on its own loop)."""
    for session in list(_open):
        if session.connection_id == connection_id and not session.loop.is_closed():
            session.loop.call_soon_threadsafe(session.close)


def connection_deleted(sender, instance, using: str, **kwargs) -> None:
    """Once the deletion of connection `instance` commits, close the sessions opened with it,
    here and (on PostgreSQL) in every other process."""
    connection_id = str(instance.pk)
    transaction.on_commit(lambda: close_opened_with(connection_id), using=using)
    if connections[using].vendor == "postgresql":  # delivered with the commit
        with connections[using].cursor() as cursor:
            cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, connection_id])


def _revoked(connection_id: str | None) -> None:
    if connection_id is not None:  # None: (re)connected, and what was revoked meanwhile is gone
        close_opened_with(connection_id)

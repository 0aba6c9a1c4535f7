"""A deadline on the web process's database work, kept on the client side.

A PostgreSQL that stops answering while its connections stay open (a hung pgbouncer, a
partition behind a proxy that acknowledges every byte) is out of reach of every limit the
server or TCP keeps: `connect_timeout` (the connection is open), keepalives and
`tcp_user_timeout` (the proxy acknowledges), `statement_timeout` (the statement never
arrives). So a web process looks over its connections four times a second, and shuts down the
socket of one whose command is still waiting for its answer past its deadline. The waiting
thread gets an `OperationalError` at once (the 503 page, or the API's 503 problem) and the
pool discards the broken connection.

A request's statements share DATABASE_REQUEST_SECONDS of database time (`per_request`); a
wait that holds no connection (an API long-poll, a call to another service) does not count.
Work outside a request (a websocket's lookups, the background loops, a streamed export) has a
few seconds for each answer: much of it runs on asgiref's one shared thread, and every API
call and probe passes through that thread too.
"""

import asyncio
import logging
import socket
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from asgiref.sync import iscoroutinefunction
from django.conf import settings
from django.db.backends.signals import connection_created
from django.http import HttpRequest, HttpResponse
from django.utils.decorators import sync_and_async_middleware
from psycopg import Connection, Error
from psycopg.pq import TransactionStatus

logger = logging.getLogger(__name__)

OUTSIDE_REQUESTS_SECONDS = 3.0
PASS_SECONDS = 0.25


class _Allowance:
    """The database time a request has left (shared by the threads doing its work)."""

    def __init__(self, seconds: float):
        self.seconds = seconds


@dataclass
class _Watch:
    """A connection's deadline, set as a statement starts (its commit and fetches keep it)."""

    deadline: float
    seconds: float
    per_answer: bool  # outside a request: counted from when it was last seen not waiting


_allowance: ContextVar[_Allowance | None] = ContextVar("database_allowance", default=None)
_watched: weakref.WeakKeyDictionary[Connection, _Watch] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


@contextmanager
def allowance(seconds: float) -> Iterator[None]:
    """Give the database work inside the block `seconds` of database time in all."""
    token = _allowance.set(_Allowance(seconds))
    try:
        yield
    finally:
        _allowance.reset(token)


@sync_and_async_middleware
def per_request(get_response):
    """Give each request DATABASE_REQUEST_SECONDS of database time."""
    if iscoroutinefunction(get_response):

        async def middleware(request: HttpRequest) -> HttpResponse:
            with allowance(settings.DATABASE_REQUEST_SECONDS):
                return await get_response(request)

        return middleware

    def sync_middleware(request: HttpRequest) -> HttpResponse:
        with allowance(settings.DATABASE_REQUEST_SECONDS):
            return get_response(request)

    return sync_middleware


async def keep() -> None:
    """Cut, in this process, every connection whose command has waited past its deadline."""
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        return  # a file: nothing in between can fall silent
    connection_created.connect(_watch_statements, dispatch_uid=__name__)
    while True:
        await asyncio.sleep(PASS_SECONDS)
        _cut_overdue(time.monotonic())


def _watch_statements(sender, connection, **kwargs) -> None:
    # First in the list: Django's `execute_wrapper()` blocks remove the last one on leaving.
    if _statement_deadline not in connection.execute_wrappers:
        connection.execute_wrappers.insert(0, _statement_deadline)


def _statement_deadline(execute, sql, params, many, context):
    granted = _allowance.get()
    seconds = OUTSIDE_REQUESTS_SECONDS if granted is None else granted.seconds
    started = time.monotonic()
    watch = _Watch(started + seconds, seconds, per_answer=granted is None)
    with _lock:
        _watched[context["connection"].connection] = watch
    try:
        return execute(sql, params, many, context)
    finally:
        if granted is not None:
            granted.seconds -= time.monotonic() - started


def _cut_overdue(now: float) -> None:
    with _lock:
        watched = list(_watched.items())
    for conn, watch in watched:
        # ACTIVE: a command was sent and its answer has not come. Idle connections, in the
        # pool or between statements, are left alone.
        if conn.info.transaction_status != TransactionStatus.ACTIVE:
            if watch.per_answer:
                watch.deadline = now + watch.seconds
            continue
        if watch.deadline >= now:
            continue
        with _lock:
            _watched.pop(conn, None)
        try:
            # A duplicate of the descriptor: shutting it down shuts down the one socket.
            with socket.fromfd(conn.fileno(), socket.AF_INET, socket.SOCK_STREAM) as sock:
                sock.shutdown(socket.SHUT_RDWR)
        except (OSError, Error):
            continue  # closed meanwhile
        logger.error(
            "database connection cut: no answer within %.1f s (the database, or a proxy in "
            "front of it, holds the connection open but does not answer)",
            max(watch.seconds, 0),
        )

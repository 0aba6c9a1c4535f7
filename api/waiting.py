"""Long-polling without holding anything: wait on a channel-layer group, not on the database.

A waiting API call first does its lookups on a pooled thread that gives its database
connection back at once (`in_db`), then joins a group and sleeps until a message arrives or
time runs out: no thread, no connection. A settled external question is announced to its
part's group; a person's message reaches the conversation's group as the chat's own push.
"""

from collections.abc import Awaitable, Callable
from functools import wraps

from asgiref.sync import sync_to_async
from django.db import connections

from api.external import KIND
from playground.part_waiting import announce_settled, part_group, wait_in_group

__all__ = ["in_db", "part_group", "wait_in_group", "wake_waiters"]


def in_db[**P, R](fn: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """Run a database function on a pooled thread, closing its connection when it returns."""

    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        finally:
            connections.close_all()

    return wraps(fn)(sync_to_async(run, thread_sensitive=False))


def wake_waiters(sender, part, html: str, **kwargs) -> None:
    """After an external agent's question settles: wake the API calls waiting for it."""
    if part.conversation.agent.kind != KIND:
        return
    announce_settled(part.pk)

"""One way for async code to do database work: `in_db`, a hop to a pooled thread and back.

Not `database_sync_to_async`: that closes a connection only when CONN_MAX_AGE says it is old,
and the embedded settings keep SQLite connections for ever, so every pooled thread that once
hopped would hold one open. Here the connection is closed as the function returns (on
PostgreSQL: given back to the pool), so waiting for the next hop holds none. And not on the
shared thread (`thread_sensitive=False`): a long-poll's lookup or a notification round never
queues behind the sync views and the agent runs that share it.
"""

import threading
from collections.abc import Awaitable, Callable
from contextlib import nullcontext
from functools import wraps

from asgiref.sync import sync_to_async
from django.db import connections


def in_db[**P, R](
    fn: Callable[P, R], *, one_at_a_time: threading.Lock | None = None
) -> Callable[P, Awaitable[R]]:
    """Return `fn` run on a pooled thread, its connections closed when it returns.

    With `one_at_a_time`, hops sharing that lock run one after the other (a background loop
    that must never take more than one of the connections the requests wait for).
    """

    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        with one_at_a_time or nullcontext():
            try:
                return fn(*args, **kwargs)
            finally:
                connections.close_all()

    return wraps(fn)(sync_to_async(run, thread_sensitive=False))

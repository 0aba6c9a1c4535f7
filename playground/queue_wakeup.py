"""Wake scale-out workers the moment a turn is queued, instead of making them poll fast.

On PostgreSQL a trigger on the turn table sends `NOTIFY` with the commit that queues a turn
(migration 0003), and each `agent_worker` LISTENs on its own connection: a queued turn starts
at once, and an idle worker asks the database for work every few seconds instead of four
times a second (about 1 % of a core each, bench/waiting_cost.py). Other databases have no such
signal: their workers poll at the fast rate. A lost notification costs at most one slow poll.

A schedule changed in a web process wakes the workers' schedule firers the same way
(`SCHEDULE_CHANGED`, sent by playground/scheduler.py with the commit): a firer sleeps until the
next slot it knows of, and would find a sooner one only at its next look.
"""

import asyncio
import logging
from collections.abc import Callable

import psycopg
from django.db import connection

logger = logging.getLogger(__name__)

CHANNEL = "playground_turn_queued"  # as in migration 0003
SCHEDULE_CHANGED = "playground_schedule_changed"


def available() -> bool:
    return connection.vendor == "postgresql"


def listen_params() -> dict:
    """Connection options for a listener: Django's own, minus its sync cursor and adapters."""
    params = connection.get_connection_params()
    return {key: value for key, value in params.items() if key not in ("cursor_factory", "context")}


async def listen(
    wakes: dict[str, Callable[[], None]], params: dict, retry_seconds: float = 1.0
) -> None:
    """Call the wake of each channel notified (`CHANNEL`: a turn was queued), until cancelled;
    reconnect after a lost database."""
    while True:
        try:
            async with await psycopg.AsyncConnection.connect(autocommit=True, **params) as db:
                for channel in wakes:
                    await db.execute(f"LISTEN {channel}")
                for wake in wakes.values():
                    wake()  # what changed while nobody listened
                async for notice in db.notifies():
                    wakes[notice.channel]()
        except psycopg.Error as error:
            logger.warning(
                "listening for queued turns and schedules failed (%s); polling meanwhile", error
            )
        await asyncio.sleep(retry_seconds)

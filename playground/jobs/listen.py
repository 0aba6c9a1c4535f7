"""The one LISTEN loop: PostgreSQL's NOTIFY, delivered with a commit, wakes other processes."""

import asyncio
import logging
from collections.abc import Callable

import psycopg
from django.db import connection

logger = logging.getLogger(__name__)


def available() -> bool:
    return connection.vendor == "postgresql"


def connection_params() -> dict:
    """Connection options for a listener: Django's own, minus its sync cursor and adapters."""
    params = connection.get_connection_params()
    return {key: value for key, value in params.items() if key not in ("cursor_factory", "context")}


async def listen(
    callbacks: dict[str, Callable[[str | None], None]], retry_seconds: float = 1.0
) -> None:
    """Call each channel's callback with the payload of every NOTIFY on it, until cancelled;
    reconnect after a lost database. After each (re)connection every callback is called once
    with None: something may have changed while nobody listened."""
    params = await asyncio.to_thread(connection_params)
    while True:
        try:
            async with await psycopg.AsyncConnection.connect(autocommit=True, **params) as db:
                for channel in callbacks:
                    await db.execute(f"LISTEN {channel}")
                for callback in callbacks.values():
                    callback(None)
                async for notice in db.notifies():
                    callbacks[notice.channel](notice.payload)
        except psycopg.Error as error:
            logger.warning("listening on %s failed (%s); retrying", ", ".join(callbacks), error)
        await asyncio.sleep(retry_seconds)

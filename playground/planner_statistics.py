"""Statistics for SQLite's query planner (sqlite_stat1), refreshed by every web process.

Without them SQLite guesses that an indexed equality (a part's state) picks out a handful of
rows, and reads every pending question of everyone to find one person's: bench/inbox.py's
count took 0.6 s at 100,000 questions, and a few ms with statistics. PostgreSQL's autovacuum
keeps its own. A whole ANALYZE (0.4 s at 100,000 questions): with `analysis_limit` sampling,
SQLite guessed a state held a thousand parts and kept reading them all. It runs at start-up
and then every REFRESH_SECONDS.
"""

import asyncio

from asgiref.sync import sync_to_async
from django.db import connection

REFRESH_SECONDS = 3600


def refresh() -> None:
    """Sample the tables' indexes for SQLite's planner (nothing on other databases)."""
    if connection.vendor != "sqlite":
        return
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


async def keep_fresh() -> None:
    """Refresh the statistics now and every REFRESH_SECONDS, until cancelled."""
    while True:
        await sync_to_async(refresh)()
        await asyncio.sleep(REFRESH_SECONDS)  # a timer, not a wait for a condition

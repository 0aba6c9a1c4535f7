"""Statistics for SQLite's query planner (sqlite_stat1), kept in step with the tables' sizes by
every web process.

Without them SQLite guesses that an indexed equality (a part's state) picks out a handful of
rows, and reads every pending question of everyone to find one person's (bench/inbox.py).
Statistics that lag the data are worse still: taken as a new server started, they said the
users' table held one row, and SQLite then read every user for each question a join went
through (bench/notify.py). So a table is
sampled again, in full (with `analysis_limit` sampling, SQLite guessed a state held a thousand
parts and kept reading them all), once its size is GROWTH times off what its statistics say;
every CHECK_SECONDS, a count of each table's rows tells. PostgreSQL's autovacuum does the same.
"""

import asyncio

from asgiref.sync import sync_to_async
from django.db import connection

CHECK_SECONDS = 60
GROWTH = 2


def refresh() -> list[str]:
    """Sample again the tables whose size moved GROWTH times from their statistics' (or that
    have rows and none); return their names (nothing on other databases)."""
    if connection.vendor != "sqlite":
        return []
    with connection.cursor() as cursor:
        names = connection.introspection.table_names(cursor)
        tables = [name for name in names if name != "sqlite_stat1"]
        known = {}
        if "sqlite_stat1" in names:  # written by the first ANALYZE
            # A row a table's index, its stat starting with the rows sampled: all of the
            # table's but in a partial index.
            cursor.execute("SELECT tbl, stat FROM sqlite_stat1")
            for table, stat in cursor.fetchall():
                known[table] = max(known.get(table, 0), int(stat.split()[0]))
        stale = []
        for table in tables:
            cursor.execute(f"SELECT count(*) FROM {connection.ops.quote_name(table)}")
            rows, then = cursor.fetchone()[0], known.get(table, 0)
            if rows > then * GROWTH or rows * GROWTH < then:
                stale.append(table)
        for table in stale:
            cursor.execute(f"ANALYZE {connection.ops.quote_name(table)}")
    return stale


async def keep_fresh() -> None:
    """Look at the tables' sizes now and every CHECK_SECONDS, until cancelled."""
    while True:
        await sync_to_async(refresh)()
        await asyncio.sleep(CHECK_SECONDS)  # a timer, not a wait for a condition

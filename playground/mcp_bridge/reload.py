"""Keep the home page's MCP servers in step with the servers file while the playground runs.

Every web process looks at the file's modification time and size each second (a `stat` on its
event loop: no thread, no watcher process). When they change the servers' agents are synced,
or the file is refused with the same message `mcp_check` gives, logged (until it is put right
no server of it is offered: calls read the file at each use, and need no sync).
"""

import asyncio
import logging
import os

from asgiref.sync import sync_to_async
from django.conf import settings

from playground.mcp_bridge import servers
from playground.mcp_bridge.catalog import sync_agents

logger = logging.getLogger(__name__)
CHECK_SECONDS = 1.0


async def watch_servers_file() -> None:
    """Sync the servers' agents at start-up and whenever the servers file changes."""
    seen: object = ()
    while True:
        now = _version(settings.MCP_SERVERS_FILE)
        if now != seen:
            seen = now
            try:
                await sync_to_async(sync_or_explain)()
            except Exception:  # the database, say: the next change tries again
                logger.exception("syncing the MCP servers failed")
        await asyncio.sleep(CHECK_SECONDS)


def sync_or_explain() -> None:
    """Sync the servers' agents, or log why the servers file cannot be used."""
    try:
        sync_agents()
    except servers.ServersFileError as error:
        logger.error("MCP servers not loaded: %s", error)
    else:
        logger.info("MCP servers loaded: %s", ", ".join(servers.load()) or "none")


def _version(path: str) -> tuple | None:
    if not path:
        return None
    try:
        stat = os.stat(path)
    except OSError:
        return None  # a missing file is refused when synced, with its name
    return (stat.st_mtime_ns, stat.st_size)

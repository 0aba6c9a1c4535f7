"""Waking a held MCP session when its question settles.

Apart from `calls`, so every process connects the receiver at start without importing the MCP
SDK (seconds of CPU for each `manage.py` command); the runner holding the session may be in
another process, which `announce_settled` reaches.
"""

from playground.chat.part_waiting import announce_settled

# Parts of a held legacy session (the only ones a restart can strand).
HELD_INTENT = "mcp_session"


def wake_session(sender, part, html: str, **kwargs) -> None:
    """After a question a held session waits on settles: wake the runner holding it."""
    if part.intent == HELD_INTENT:
        announce_settled(part.pk)

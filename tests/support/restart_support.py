"""Restart tests' setup: a playground started as a process of its own (so a test can SIGKILL it
and start it again), a person's chat in it, and the question the chat waits on."""

from collections.abc import Iterator

from tests.support.live_server import FAST_RECOVERY, LiveClient, LiveServer, wait_for

USERS = {"alice": "alice-password-1"}


def serving(tmp_path, env: dict[str, str]) -> Iterator[LiveServer]:
    """Yield a started playground with `env` and alice (a fixture's body), and stop it after."""
    server = LiveServer(tmp_path, env={**env, **FAST_RECOVERY})
    server.prepare(USERS)
    server.start()
    yield server
    server.stop()


def one(server: LiveServer, sql: str, *params):
    """Return the first column of the query's first row (None when no row)."""
    rows = server.query(sql, params)
    return rows[0][0] if rows else None


def chat_until_asked(
    server: LiveServer, new_chat: str, data: dict, text: str
) -> tuple[LiveClient, int, int]:
    """Start alice's chat (POST `new_chat` with `data`), send `text`; return her client, the
    conversation's id and the id of the question it asks, once it is waiting."""
    client = LiveClient(server, "alice", USERS["alice"])
    _, page = client.post(new_chat, data)
    conversation_id = int(page.split('ws-connect="/ws/c/')[1].split("/")[0])
    client.post(f"/c/{conversation_id}/send", {"text": text})
    part_id = wait_for(
        lambda: one(server, "SELECT id FROM elicitation_part WHERE state = ?", "pending")
    )
    return client, conversation_id, part_id

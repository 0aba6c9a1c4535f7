"""A revoked connection closes the kept sessions opened with it at once, not at their next use:
the stdio server started with the person's credential in its environment exits, and the HTTP
session opened with it is ended (its DELETE reaches the server), with no further message from
anyone. In the process that revokes (the embedded stack) and, through PostgreSQL, in the
scale-out worker that holds the session."""

import asyncio
import re
import sys
import uuid
from dataclasses import replace
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from django.test import AsyncClient

from playground.connections.models import Connection, use
from playground.mcp_bridge import servers
from playground.mcp_bridge.sessions import session
from tests.support.connections_support import new_key, services_file
from tests.support.live_server import LiveServer, wait_for
from tests.support.mcp_support import HttpTestServer, chat_with, http_servers_file
from tests.test_scaleout import (
    PASSWORD,
    USERNAME,
    Person,
    PostgresDatabase,
    Worker,
    clear_redis_prefix,
    require_services,
    scaleout_env,
)

pytestmark = pytest.mark.timeout(180)

ENV_SERVER = Path(__file__).parent / "support" / "mcp_env_server.py"
TOKEN = "tok-alice-revoked-5d1e"


def env_servers_file(directory: Path) -> Path:
    path = directory / "mcp_servers.toml"
    path.write_text(
        f'[servers.env]\ntitle = "Env server"\ntransport = "stdio"\ncommand = "{sys.executable}"\n'
        f'args = ["{ENV_SERVER}"]\nconnection = "demo"\n'
    )
    return path


def alive(pid: int) -> bool:
    """Return whether process `pid` runs (an exited one not yet reaped does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])


@pytest.fixture
def vault(settings, tmp_path):
    settings.CONNECTIONS_KEYS = [new_key()]
    settings.CONNECTION_SERVICES_FILE = str(services_file(tmp_path))


def with_credential(config: servers.ServerConfig, connection: Connection):
    """Return `config` taking `connection`'s credential, as a person's chat does."""

    async def opened(*, refused=None):
        return await sync_to_async(use)(connection.owner, str(connection.pk), refused=refused)

    return replace(config, credential=opened)


async def revoke(connection: Connection) -> None:
    """Revoke `connection` as its owner does, on the connections page."""
    web = AsyncClient()
    await web.aforce_login(connection.owner)
    response = await web.post(f"/connections/{connection.pk}/revoke")
    assert response.status_code == 302
    assert not await Connection.objects.filter(pk=connection.pk).aexists()


async def settled(condition, message: str) -> None:
    """Wait for `condition` off the event loop (the sessions close on it meanwhile)."""
    await asyncio.to_thread(wait_for, condition, message=message)


@pytest.mark.django_db(transaction=True)
async def test_revoking_ends_the_stdio_server_started_with_the_credential(
    settings, client, alice, vault, tmp_path
):
    path = env_servers_file(tmp_path)
    conversation = await sync_to_async(chat_with)(settings, client, alice, path)
    store = sync_to_async(Connection.store)
    connection = await store(alice, "demo", "Mine", {"token": TOKEN, "region": "eu"})
    config = with_credential(servers.load(path)["env"], connection)
    async with session(config, conversation.pk) as live:
        pid = int((await live.client.call_tool("pid", {})).content[0].text.split()[1])
    assert alive(pid) and not live.stopping  # kept warm for the next message

    await revoke(connection)
    await settled(lambda: not alive(pid), "the server outlived its credential")
    assert live.stopping


@pytest.mark.django_db(transaction=True)
async def test_revoking_ends_the_http_session_opened_with_the_credential(
    settings, client, alice, vault, tmp_path
):
    log = tmp_path / "server.log"
    server = HttpTestServer(log=log)
    try:
        path = http_servers_file(
            tmp_path, server.url, protocol="legacy", extra='connection = "demo"\n'
        )
        conversation = await sync_to_async(chat_with)(settings, client, alice, path)
        store = sync_to_async(Connection.store)
        connection = await store(alice, "demo", "Mine", {"token": TOKEN, "region": "eu"})
        config = with_credential(servers.load(path)["test"], connection)
        async with session(config, conversation.pk) as live:
            await live.client.call_tool("echo", {"text": "hi"})
        assert "DELETE /mcp" not in log.read_text()

        await revoke(connection)
        await settled(lambda: "DELETE /mcp" in log.read_text(), "the session was not ended")
        assert live.stopping
    finally:
        server.stop()


# The same through real processes: a chat in the browser's place, the session kept by whoever
# runs turns (the web process itself, or a scale-out worker), revoked on the connections page.


@pytest.fixture(params=["embedded", "scale-out"])
def stack(request, tmp_path):
    env = {
        "CONNECTIONS_KEY": new_key(),
        "CONNECTION_SERVICES_FILE": str(services_file(tmp_path)),
        "MCP_SERVERS_FILE": str(env_servers_file(tmp_path)),
    }
    database = worker = None
    if request.param == "scale-out":
        require_services()
        database = PostgresDatabase()
        env |= scaleout_env(database, tmp_path)
    web = LiveServer(tmp_path, env)
    try:
        web.prepare({USERNAME: PASSWORD})
        web.start()
        if database is not None:
            worker = Worker(web.env, tmp_path / "worker.log")
        yield web, database, worker
    finally:
        for process in (web, worker):
            if process is not None:
                process.stop()
        if database is not None:
            database.drop()
            clear_redis_prefix(env["REDIS_PREFIX"])


def test_revoking_on_the_connections_page_ends_the_server_of_an_open_chat(stack):
    web, database, worker = stack

    def rows(sql: str, params: tuple = ()) -> list[tuple]:
        if database is not None:
            return database.query(sql, params)
        return web.query(sql.replace("%s", "?"), params)

    # The web process lists the servers file's servers on the home page as it starts.
    wait_for(lambda: rows("SELECT id FROM playground_agent WHERE slug = 'mcp-env'"))
    person = Person(web)
    conversation = person.start_conversation(web, "mcp-env")
    card = wait_for(
        lambda: rows(
            "SELECT id FROM elicitation_part WHERE conversation_id = %s "
            "AND render_kind = 'connection' AND state = 'pending'",
            (conversation,),
        ),
        message="no connection card",
    )[0][0]
    data = {"field.token": TOKEN, "label": "Mine", "connect": "1"}
    assert person.post(web, f"/parts/{card}/connect", data).status_code == 200
    person.post(web, f"/c/{conversation}/send", {"text": "pid"})

    def said_pid() -> int | None:
        texts = rows(
            "SELECT m.text FROM playground_message m JOIN playground_turn t ON m.turn_id = t.id "
            "WHERE t.conversation_id = %s AND m.role = 'agent'",
            (conversation,),
        )
        found = [re.fullmatch(r"pid (\d+)", text) for (text,) in texts]
        return next((int(match.group(1)) for match in found if match), None)

    pid = wait_for(said_pid, message=f"no pid said: {web.log()[-2000:]}")
    runner = worker.process.pid if worker else web.process.pid
    assert alive(pid) and parent_of(pid) == runner  # kept by whoever ran the turn
    if database is not None:  # the worker runs jobs and keeps a session: one LISTEN for both
        listening = "SELECT count(*) FROM pg_stat_activity WHERE starts_with(query, 'LISTEN ')"
        assert rows(listening + " AND datname = current_database()") == [(1,)]

    [(connection_id,)] = rows("SELECT id FROM connections_connection")
    revoked = person.post(web, f"/connections/{uuid.UUID(str(connection_id))}/revoke")
    assert revoked.status_code == 302
    wait_for(lambda: not alive(pid), message="the server outlived its revoked credential")

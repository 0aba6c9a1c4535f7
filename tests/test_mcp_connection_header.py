"""An MCP server with `connection = "demo"` takes each person's own credential: the person with
no connection is asked for one first (the card), and the SDK-built server then receives that
person's header (it echoes a digest, never the value); the value is stored nowhere else."""

import sys
from pathlib import Path

import pytest

from elicitation.models import Part
from playground.connections.models import Connection
from playground.runs.models import Conversation
from tests.support.connections_support import (
    capture_logs,
    digest,
    everything_stored,
    new_key,
    raw_database,
    services_file,
)
from tests.support.mcp_support import HttpTestServer, chat_with, http_servers_file
from tests.support.runtime_helpers import pending, said, send

pytestmark = pytest.mark.django_db(transaction=True)

ENV_SERVER = Path(__file__).parent / "support" / "mcp_env_server.py"
ALICE_TOKEN = "tok-alice-mcp-31f0c2"
BOB_TOKEN = "tok-bob-mcp-77e1aa"


@pytest.fixture
def servers(request, settings, tmp_path):
    server = HttpTestServer()
    request.addfinalizer(server.stop)
    settings.CONNECTIONS_KEYS = [new_key()]
    settings.CONNECTION_SERVICES_FILE = str(services_file(tmp_path))
    return http_servers_file(tmp_path, server.url, extra='connection = "demo"\n')


def connect(client, part: Part, token: str):
    data = {"field.token": token, "label": "Mine", "connect": "1"}
    response = client.post(f"/parts/{part.pk}/connect", data, HTTP_HX_REQUEST="true")
    assert response.status_code == 200, response.content


def test_a_person_without_a_connection_is_asked_and_their_header_reaches_the_server(
    settings, client, alice, servers, caplog
):
    capture_logs(caplog)
    conversation = chat_with(settings, client, alice, servers)
    send(client, conversation, "authorization")
    card = pending(conversation)
    assert card.render_kind == "connection"
    assert card.normalized["title"] == "Demo"
    connect(client, card, ALICE_TOKEN)
    assert said(conversation)[-1] == f"Authorization: sha256 {digest('Bearer ' + ALICE_TOKEN)}"

    # The next turn uses the connection she has, without asking again.
    send(client, conversation, "authorization")
    assert Part.objects.filter(conversation=conversation, render_kind="connection").count() == 1
    assert said(conversation)[-1] == f"Authorization: sha256 {digest('Bearer ' + ALICE_TOKEN)}"

    assert ALICE_TOKEN not in everything_stored()
    assert ALICE_TOKEN.encode() not in raw_database()
    assert ALICE_TOKEN not in caplog.text
    assert ALICE_TOKEN not in client.get(f"/c/{conversation.pk}/").content.decode()


def test_each_person_sends_their_own_credential(settings, client, alice, bob, servers):
    Connection.store(alice, "demo", "Alice", {"token": ALICE_TOKEN, "region": "eu"})
    Connection.store(bob, "demo", "Bob", {"token": BOB_TOKEN, "region": "eu"})
    theirs = chat_with(settings, client, bob, servers)
    send(client, theirs, "authorization")
    assert said(theirs)[-1] == f"Authorization: sha256 {digest('Bearer ' + BOB_TOKEN)}"
    client.force_login(alice)
    mine = Conversation.objects.create(owner=alice, agent=theirs.agent)
    send(client, mine, "authorization")
    assert said(mine)[-1] == f"Authorization: sha256 {digest('Bearer ' + ALICE_TOKEN)}"


def test_declining_the_card_calls_nothing(settings, client, alice, servers):
    conversation = chat_with(settings, client, alice, servers)
    send(client, conversation, "authorization")
    card = pending(conversation)
    client.post(f"/parts/{card.pk}/settle", {"action": "decline"}, HTTP_HX_REQUEST="true")
    assert said(conversation)[-1] == "Not connected, so Test server was not called."


def test_a_stdio_server_started_for_a_person_gets_their_credential_in_its_environment(
    settings, client, alice, tmp_path
):
    settings.CONNECTIONS_KEYS = [new_key()]
    settings.CONNECTION_SERVICES_FILE = str(services_file(tmp_path))
    path = tmp_path / "mcp_servers.toml"
    path.write_text(
        '[servers.env]\ntitle = "Env server"\ntransport = "stdio"\n'
        f"command = {sys.executable!r}\nargs = [{str(ENV_SERVER)!r}]\n"
        'connection = "demo"\n'
    )
    Connection.store(alice, "demo", "Alice", {"token": ALICE_TOKEN, "region": "eu"})
    conversation = chat_with(settings, client, alice, path)
    send(client, conversation, "token")
    assert said(conversation)[-1] == f"MCP_TEST_TOKEN: sha256 {digest(ALICE_TOKEN)}"
    assert ALICE_TOKEN not in everything_stored()

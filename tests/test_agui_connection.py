"""An AG-UI agent with `connection = "<service>"` runs with each person's own credential, found or
asked for as an MCP server's is (`playground.connections.required`): a person with none is asked
first and
the agent then gets their header; one who declines is told the agent was not run; one whose
OAuth grant the provider no longer renews is asked again."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from elicitation.models import Part
from playground.connections.models import Connection
from tests.support import oauth_support
from tests.support.agui_support import BROKEN_SERVER, agents_file, chat_with, serving
from tests.support.connections_support import new_key, services_file
from tests.support.runtime_helpers import pending, said, send

pytestmark = pytest.mark.django_db(transaction=True)

TOKEN = "tok-alice-agui-4b7e19"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serving(BROKEN_SERVER, tmp_path_factory)


@pytest.fixture
def chat(settings, tmp_path, client, alice, server):
    def start(service: str):
        extra = f'connection = "{service}"\n'
        return chat_with(settings, client, alice, agents_file(tmp_path, server.url("state"), extra))

    return start


@pytest.fixture
def demo(settings, tmp_path):
    settings.CONNECTIONS_KEYS = [new_key()]
    settings.CONNECTION_SERVICES_FILE = str(services_file(tmp_path))


def sent_authorization(server) -> str:
    return json.loads(server.log.read_text().splitlines()[-1])["headers"]["Authorization"]


def test_a_person_without_a_connection_is_asked_and_the_agent_gets_their_header(
    client, chat, demo, server
):
    conversation = chat("demo")
    send(client, conversation, "count")
    card = pending(conversation)
    assert card.render_kind == "connection"
    assert card.message == "Test agent runs with your own demo credential."
    data = {"field.token": TOKEN, "label": "Mine", "connect": "1"}
    client.post(f"/parts/{card.pk}/connect", data, HTTP_HX_REQUEST="true")
    assert said(conversation)[-1] == "Count is 1."
    assert sent_authorization(server) == f"Bearer {TOKEN}"

    # The next turn uses the connection she has, without asking again.
    send(client, conversation, "count again")
    assert said(conversation)[-1] == "Count is 2."
    assert Part.objects.filter(conversation=conversation, render_kind="connection").count() == 1


def test_declining_the_card_runs_nothing(client, chat, demo, server):
    conversation = chat("demo")
    runs = len(server.runs("state"))
    send(client, conversation, "count")
    card = pending(conversation)
    client.post(f"/parts/{card.pk}/settle", {"action": "decline"}, HTTP_HX_REQUEST="true")
    assert said(conversation)[-1] == "Not connected, so Test agent was not run."
    assert len(server.runs("state")) == runs


def test_a_grant_the_provider_no_longer_renews_asks_again(
    request, settings, tmp_path, monkeypatch, client, chat
):
    provider = oauth_support.OAuthTestServer()
    request.addfinalizer(provider.stop)
    settings.CONNECTIONS_KEYS = [new_key()]
    settings.CONNECTIONS_ALLOW_PRIVATE = True  # the provider is on 127.0.0.1
    settings.CONNECTION_SERVICES_FILE = str(oauth_support.services_file(tmp_path, provider))
    monkeypatch.setenv("CALENDAR_CLIENT_SECRET", oauth_support.CLIENT_SECRET)
    conversation = chat("notes")
    send(client, conversation, "count")
    signing_in = client.post(
        f"/parts/{pending(conversation).pk}/connect",
        {"label": "My notes", "connect": "1"},
        HTTP_HX_REQUEST="true",
    )
    at_provider = oauth_support.sign_in_at_provider(signing_in["HX-Redirect"])
    client.get(oauth_support.callback_path(at_provider))
    assert said(conversation)[-1] == "Count is 1."

    provider.revoke_all()
    Connection.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    send(client, conversation, "count again")
    assert not Connection.objects.exists()  # the refused grant is gone
    card = pending(conversation)
    assert card.render_kind == "connection" and card.normalized["existing"] is None

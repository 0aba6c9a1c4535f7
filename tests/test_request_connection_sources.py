"""`request_connection` from the other sources: an external agent over the HTTP API and an LLM
agent's model. Both show the same connection card; the person connects in the vault's form;
the API's envelope and the model's tool result are the reference only, never the value."""

import pytest
from django.test import Client
from pydantic_ai.messages import ModelMessagesTypeAdapter

from elicitation.models import Part
from tests.support.api_support import ApiClient
from tests.support.connections_support import everything_stored, new_key, services_file
from tests.support.llm_support import REQUESTS, call, logged_in, scripted, tool_results  # noqa: F401
from tests.support.runtime_helpers import pending, said, send, start

pytestmark = pytest.mark.django_db(transaction=True)

TOKEN = "tok-sources-5be01c"


@pytest.fixture(autouse=True)
def demo(settings, tmp_path):
    settings.CONNECTIONS_KEYS = [new_key()]
    settings.CONNECTION_SERVICES_FILE = str(services_file(tmp_path))


def connect(client: Client, part: Part) -> None:
    data = {"field.token": TOKEN, "label": "Mine", "connect": "1"}
    assert client.post(f"/parts/{part.pk}/connect", data).status_code == 200


def test_an_external_agent_asks_for_a_connection_and_gets_a_reference(alice):
    api = ApiClient(alice)
    conversation_id = api.open_conversation()
    asked = api.post(
        f"/conversations/{conversation_id}/connections",
        {"service": "demo", "reason": "I deploy with your Demo account."},
    )
    assert asked.status_code == 201, asked.content
    assert asked.json()["state"] == "pending"
    person = Client()
    person.force_login(alice)
    page = person.get(f"/c/{conversation_id}/").content.decode()
    assert "asks to use your Demo connection" in page
    assert "I deploy with your Demo account." in page

    connect(person, Part.objects.get(pk=asked.json()["id"]))
    settled = api.get(f"/requests/{asked.json()['id']}")
    envelope = settled.json()["envelope"]
    assert envelope["action"] == "accept"
    assert set(envelope["content"]) == {"connection", "service", "label"}
    assert TOKEN not in settled.content.decode()
    listed = api.get(f"/conversations/{conversation_id}/requests")
    assert TOKEN not in listed.content.decode()
    assert TOKEN not in everything_stored()


def test_an_unknown_service_is_a_422_that_names_it(alice):
    api = ApiClient(alice)
    conversation_id = api.open_conversation()
    asked = api.post(f"/conversations/{conversation_id}/connections", {"service": "nope"})
    assert asked.status_code == 422
    assert "No service named 'nope'" in asked.json()["detail"]
    assert not Part.objects.exists()


@pytest.mark.usefixtures("logged_in")
def test_a_model_asks_for_a_connection_and_sees_only_the_reference(client, alice):
    scripted(
        [call("request_connection", service="demo", reason="To read your Demo projects.")],
        lambda messages: f"Result: {tool_results(messages)[-1]}",
    )
    conversation = start(alice, "test-llm")
    send(client, conversation, "connect my demo account")
    card = pending(conversation)
    assert card.render_kind == "connection"
    assert card.message == "To read your Demo projects."
    connect(client, card)
    [reply] = said(conversation)
    assert '"service": "demo"' in reply or "'service': 'demo'" in reply
    for request in REQUESTS:
        assert TOKEN not in ModelMessagesTypeAdapter.dump_json(request).decode()
    assert TOKEN not in everything_stored()


@pytest.mark.usefixtures("logged_in")
def test_a_model_asking_for_an_undeclared_service_is_told_at_once(client, alice):
    scripted(
        [call("request_connection", service="github")],
        lambda messages: f"Result: {tool_results(messages)[-1]}",
    )
    conversation = start(alice, "test-llm")
    send(client, conversation, "connect github")
    assert not Part.objects.filter(render_kind="connection").exists()
    assert "No service named 'github'" in said(conversation)[-1]

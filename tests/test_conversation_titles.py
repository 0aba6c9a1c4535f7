"""A conversation is listed by something a person can read, not by raw JSON."""

import json

from tests.conftest import make_conversation

HTMX = {"HTTP_HX_REQUEST": "true"}


def test_a_pasted_payload_titles_the_conversation_with_its_message(client, alice, seeded):
    conversation = make_conversation(alice, "schema-tester")
    client.force_login(alice)
    payload = {"message": "Which environment?", "requestedSchema": {"type": "object"}}
    client.post(f"/c/{conversation.pk}/send", {"text": json.dumps(payload)}, **HTMX)
    conversation.refresh_from_db()
    assert conversation.title == "Which environment?"
    assert "Which environment?" in client.get("/").content.decode()


def test_an_ordinary_message_titles_the_conversation_as_written(client, alice, seeded):
    conversation = make_conversation(alice, "schema-tester")
    client.force_login(alice)
    client.post(f"/c/{conversation.pk}/send", {"text": "[1, 2] is not a payload"}, **HTMX)
    conversation.refresh_from_db()
    assert conversation.title == "[1, 2] is not a payload"

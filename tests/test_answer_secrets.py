"""A secret typed into an answer is removed before it is saved, and the chip and agent say so."""

import json

import pytest
from django.apps import apps
from django.core import serializers

from elicitation.models import Part
from playground.runs.models import Turn
from tests.conftest import make_question
from tests.support.runtime_helpers import pending, said, send, start

pytestmark = pytest.mark.django_db(transaction=True)

SECRET = "sk-live-4eC39HqLyjWDarjtT1zdp7dc"
PAYLOAD = {
    "message": "Describe the deploy",
    "requestedSchema": {
        "type": "object",
        "properties": {
            "summary": {"type": "string", "title": "Summary"},
            "config": {"type": "string", "title": "Config", "x-ui": {"widget": "code"}},
            "replicas": {"type": "integer", "minimum": 1},
        },
        "required": ["summary"],
    },
}
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def client(client, alice):
    client.force_login(alice)
    return client


@pytest.fixture
def question(client, alice) -> Part:
    conversation = start(alice, "schema-tester")
    send(client, conversation, json.dumps(PAYLOAD))
    return pending(conversation)


def submit(client, part: Part, **answers):
    data = {"action": "accept", **{f"answer.{name}": value for name, value in answers.items()}}
    return client.post(f"/parts/{part.pk}/settle", data, **HTMX)


def stored_anywhere(text: str) -> bool:
    """Return whether text is in any row of any table."""
    return any(
        text in serializers.serialize("json", model.objects.all()) for model in apps.get_models()
    )


def envelope_the_agent_showed(part: Part) -> dict:
    reply = said(part.conversation)[-1]
    return json.loads(reply.split("```json\n", 1)[1].rsplit("\n```", 1)[0])


def test_a_secret_in_a_text_answer_is_never_stored(client, question):
    response = submit(
        client, question, summary=f"API key is {SECRET}", config="retries: 3\nregion: eu"
    )

    assert response.status_code == 200
    question.refresh_from_db()
    assert question.response == {
        "action": "accept",
        "content": {"summary": "API key is [redacted]", "config": "retries: 3\nregion: eu"},
        "redacted": ["summary"],
    }
    assert not stored_anywhere(SECRET)


def test_the_chip_says_the_secret_was_removed(client, question):
    html = submit(client, question, summary=f"API key is {SECRET}").content.decode()

    assert (
        "<dt>Summary</dt><dd>API key is [redacted] "
        '<small class="redaction-note">secret removed before saving</small></dd>'
    ) in html
    assert SECRET not in html


def test_the_agent_receives_the_redacted_envelope(client, question):
    submit(client, question, summary=f"API key is {SECRET}", replicas="2")

    assert envelope_the_agent_showed(question) == {
        "action": "accept",
        "content": {"summary": "API key is [redacted]", "replicas": 2},
        "redacted": ["summary"],
    }


def test_code_fields_keep_key_value_lines_as_typed(client, question):
    config = "database:\n  password: hunter2\n  host: db.internal\n"
    html = submit(client, question, summary="Roll out v2", config=config).content.decode()

    question.refresh_from_db()
    assert question.response == {
        "action": "accept",
        "content": {"summary": "Roll out v2", "config": config},
    }
    assert "secret removed" not in html


def test_a_refused_answer_keeps_what_was_typed_and_stores_nothing(client, question):
    response = submit(client, question, summary=f"API key is {SECRET}", replicas="0")

    assert response.status_code == 422
    assert f'value="API key is {SECRET}"' in response.content.decode()
    question.refresh_from_db()
    assert question.state == Part.State.PENDING
    assert not stored_anywhere(SECRET)


def test_a_secret_in_a_prose_reply_is_removed_too(client, alice):
    conversation = start(alice, "schema-tester")
    turn = Turn.objects.create(
        conversation=conversation, index=0, text="ask", status=Turn.Status.DONE
    )
    part = make_question(turn, PAYLOAD, actions=("accept", "respond", "cancel"))
    data = {"action": "respond", "text": "Skip it, the password is hunter2!"}

    html = client.post(f"/parts/{part.pk}/settle", data, **HTMX).content.decode()

    part.refresh_from_db()
    assert part.response == {
        "action": "respond",
        "text": "Skip it, the password is [redacted]!",
        "redacted": ["text"],
    }
    assert "secret removed before saving" in html
    assert not stored_anywhere("hunter2")

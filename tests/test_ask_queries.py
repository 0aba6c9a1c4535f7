"""Asking a question is one write: the run inserts the part, already marked as shown in the
chat, renders it and pushes it, with no second UPDATE and no re-read of the part."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from elicitation.models import Part
from playground.api import external
from playground.runs.models import Conversation
from tests.support.api_support import ASK, ApiClient
from tests.support.runtime_helpers import send, start

pytestmark = pytest.mark.django_db(transaction=True)

QUESTION = {
    "message": "Which environment?",
    "requestedSchema": {"type": "object", "properties": {"environment": {"type": "string"}}},
}


def part_writes(captured: CaptureQueriesContext) -> list[str]:
    return [
        query["sql"].split(" ", 1)[0]
        for query in captured
        if query["sql"].startswith(("INSERT", "UPDATE")) and '"elicitation_part"' in query["sql"]
    ]


def test_a_question_is_saved_with_one_insert_and_never_touched_again(client, alice, seeded):
    client.force_login(alice)
    conversation = start(alice, "schema-tester")

    with CaptureQueriesContext(connection) as captured:
        send(client, conversation, json.dumps(QUESTION))

    assert part_writes(captured) == ["INSERT"]
    part = conversation.parts.get()
    assert part.state == Part.State.PENDING
    assert part.pushed_at is not None  # the admin's "Shown in the chat"


def test_a_question_asked_over_the_http_api_is_one_insert_too(alice):
    api = ApiClient(alice)  # the endpoint runs `ask` off this thread: call it here to count
    conversation = Conversation.objects.get(pk=api.open_conversation())

    with CaptureQueriesContext(connection) as captured:
        asked = external.ask(api.token, conversation, ASK)

    assert part_writes(captured) == ["INSERT"]
    assert Part.objects.get(pk=asked.part.pk).pushed_at is not None

"""Asking a question is one write: the run inserts the part, already marked as shown in the
chat, renders it and pushes it, with no second UPDATE and no re-read of the part."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from elicitation.models import Part
from tests.runtime_helpers import send, start

pytestmark = pytest.mark.django_db(transaction=True)

QUESTION = {
    "message": "Which environment?",
    "requestedSchema": {"type": "object", "properties": {"environment": {"type": "string"}}},
}


def test_a_question_is_saved_with_one_insert_and_never_touched_again(client, alice, seeded):
    client.force_login(alice)
    conversation = start(alice, "schema-tester")

    with CaptureQueriesContext(connection) as captured:
        send(client, conversation, json.dumps(QUESTION))

    part_writes = [
        query["sql"].split(" ", 1)[0]
        for query in captured
        if query["sql"].startswith(("INSERT", "UPDATE")) and '"elicitation_part"' in query["sql"]
    ]
    assert part_writes == ["INSERT"]
    part = conversation.parts.get()
    assert part.state == Part.State.PENDING
    assert part.pushed_at is not None  # the admin's "Shown in the chat"

"""The answer cycle stays lean: a person's answer, the settlement, the resumed run and its reply
take a fixed, small number of queries (session and login included). bench/cycle_profile.py
prints the same breakdown with timings."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.support.runtime_helpers import answer, send, start

pytestmark = pytest.mark.django_db(transaction=True)

QUESTION = {
    "message": "Which environment?",
    "requestedSchema": {"type": "object", "properties": {"environment": {"type": "string"}}},
}
TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")


def test_a_full_answer_cycle_takes_at_most_15_queries(client, alice, seeded):
    client.force_login(alice)
    conversation = start(alice, "schema-tester")
    for _ in range(2):  # the first cycle warms what a long-lived process keeps warm
        send(client, conversation, json.dumps(QUESTION))
    first, second = conversation.parts.order_by("pk")
    answer(client, first, environment="staging")

    with CaptureQueriesContext(connection) as captured:
        response = answer(client, second, environment="production")

    assert response.status_code == 200
    assert conversation.turns.get(pk=second.turn_id).status == "done"
    statements = [
        query["sql"] for query in captured if not query["sql"].startswith(TRANSACTION_CONTROL)
    ]
    assert len(statements) <= 15, "\n".join(sql[:120] for sql in statements)

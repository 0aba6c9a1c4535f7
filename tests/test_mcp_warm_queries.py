"""A warm MCP call stays lean: a tool called by name in a conversation whose session is open
takes a fixed, small number of queries, from the message's POST to the result (the turn's claim
and replay, the recorded steps, the result's message; the wire log's rows are written by a
task of their own and not counted). bench/mcp_roundtrip.py times the same path."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.support.mcp_support import chat_with, stdio_servers_file
from tests.support.runtime_helpers import said, send

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(120)]

TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")


def test_a_warm_tool_call_takes_at_most_n_queries(settings, client, alice, tmp_path):
    conversation = chat_with(settings, client, alice, stdio_servers_file(tmp_path))
    for word in ("first", "second"):  # the first opens the session; the second warms the rest
        send(client, conversation, f'echo {{"text": "{word}"}}')
    with CaptureQueriesContext(connection) as captured:
        send(client, conversation, 'echo {"text": "warm"}')
    assert said(conversation)[-1] == "warm"
    statements = [
        query["sql"]
        for query in captured
        if not query["sql"].startswith(TRANSACTION_CONTROL)
        and "playground_wiremessage" not in query["sql"]
    ]
    assert len(statements) <= 25, "\n".join(sql[:160] for sql in statements)

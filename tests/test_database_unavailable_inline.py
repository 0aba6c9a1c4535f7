"""A form the page sends while the database is lost is told so beside the form, in words (the
page keeps what was typed); a page load still gets the 503 page."""

import json

import pytest
from django.db import OperationalError, connection

from playground.runs.models import Agent, Conversation
from tests.support.admin_support import chat_client, make_person


def lost_database(execute, sql, params, many, context):
    raise OperationalError("server closed the connection unexpectedly")


@pytest.mark.django_db
def test_a_message_sent_while_the_database_is_lost_is_refused_in_words(seeded):
    person = make_person("carol")
    agent = Agent.objects.get(slug="deploy-assistant")
    conversation = Conversation.objects.create(owner=person, agent=agent)
    client = chat_client(person)
    with connection.execute_wrapper(lost_database):
        sent = client.post(
            f"/c/{conversation.pk}/send", {"text": "Ship it"}, headers={"HX-Request": "true"}
        )
        page = client.get(f"/c/{conversation.pk}/")
    assert sent.status_code == 503 and sent["Retry-After"] == "10"
    refusal = json.loads(sent["HX-Trigger"])["requestRefused"]["message"]
    assert refusal.startswith("We can't reach the database right now.")
    assert sent["HX-Reswap"] == "none"  # nothing swapped into the chat
    assert page.status_code == 503 and "<h1>We can't reach the database" in page.text

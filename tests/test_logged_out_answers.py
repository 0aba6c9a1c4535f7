"""A logged-out browser answering or sending from the chat is told so; no page is swapped in."""

from django.test import Client

from playground.runs.models import Turn
from tests.conftest import make_conversation, make_question

HTMX = {"HTTP_HX_REQUEST": "true"}
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}}


def test_an_answer_from_a_logged_out_htmx_request_gets_a_message_not_a_page(alice, seeded):
    conversation = make_conversation(alice, "schema-tester")
    turn = Turn.objects.create(conversation=conversation, index=0, text="hi")
    part = make_question(turn, {"message": "Where?", "requestedSchema": SCHEMA})
    data = {"action": "accept", "answer.city": "Bergen"}
    response = Client().post(f"/parts/{part.pk}/settle", data, **HTMX)
    assert response.status_code == 401
    assert response.content.decode() == "You were logged out. Log in again — your answer is kept."
    part.refresh_from_db()
    assert part.is_pending


def test_a_message_from_a_logged_out_htmx_request_gets_a_message_not_a_page(alice, seeded):
    conversation = make_conversation(alice, "schema-tester")
    response = Client().post(f"/c/{conversation.pk}/send", {"text": "hello"}, **HTMX)
    assert response.status_code == 401
    assert "<html" not in response.content.decode()
    assert not conversation.turns.exists()


def test_without_htmx_a_logged_out_browser_is_sent_to_log_in(alice, seeded):
    conversation = make_conversation(alice, "schema-tester")
    response = Client().post(f"/c/{conversation.pk}/send", {"text": "hello"})
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")

"""Cancelling pending questions from the admin settles them and the agents carry on."""

import pytest

from elicitation.models import Part
from playground.runs.models import Message, Turn
from tests.support.admin_support import answer_then_next, ask, chat_client, make_person, make_staff

PARTS = "/admin/elicitation/part/"
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def alice(seeded):
    return make_person("alice")


@pytest.fixture
def operator(seeded):
    return make_staff("root", superuser=True)


def run_action(client, action: str, parts, url: str = PARTS):
    data = {"action": action, "index": "0", "_selected_action": [part.pk for part in parts]}
    return client.post(url, data, follow=True)


def test_cancelling_a_pending_question_resumes_the_run(alice, operator):
    part = ask(chat_client(alice), alice, "deploy-assistant", "Deploy please")
    assert part.state == Part.State.PENDING

    response = run_action(chat_client(operator), "cancel_pending", [part])

    part.refresh_from_db()
    assert part.state == Part.State.CANCELLED
    assert part.response == {"action": "cancel"}
    assert part.settled_by == operator
    assert part.resumed_at is not None
    said = Message.objects.filter(turn=part.turn).values_list("text", flat=True)
    assert "Okay, nothing was deployed." in said
    assert Turn.objects.get(pk=part.turn_id).status == Turn.Status.DONE
    assert "Cancelled 1 pending question; their agents were told and carry on." in (
        response.content.decode()
    )


def test_settled_parts_are_skipped_with_a_message(alice, operator):
    client = chat_client(alice)
    settled = ask(client, alice, "deploy-assistant", "Deploy please")
    answer_then_next(client, settled, "decline")
    pending = ask(client, alice, "support-triage", "Watch the queue")

    response = run_action(chat_client(operator), "cancel_pending", [settled, pending])

    page = response.content.decode()
    assert "Cancelled 1 pending question" in page
    assert "Skipped 1 question already settled: a settled part never changes." in page
    settled.refresh_from_db()
    assert settled.state == Part.State.DECLINED
    assert settled.response == {"action": "decline"}
    assert Part.objects.get(pk=pending.pk).state == Part.State.CANCELLED


def test_the_detail_page_can_cancel_its_own_question(alice, operator):
    part = ask(chat_client(alice), alice, "deploy-assistant", "Deploy please")
    url = f"{PARTS}{part.pk}/change/"
    client = chat_client(operator)
    assert "Cancel the selected pending questions" in client.get(url).content.decode()

    response = client.post(
        url, {"CHANGE_FORM-action": "cancel_pending", "_selected_action": part.pk}, follow=True
    )

    assert response.redirect_chain[-1][0] == url
    part.refresh_from_db()
    assert part.state == Part.State.CANCELLED
    assert "Cancelled 1 pending question" in response.content.decode()

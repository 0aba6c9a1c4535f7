"""Only staff reach the admin; reviewers read everything and change nothing; settled is final."""

from datetime import timedelta

import pytest
from django.utils import timezone

from elicitation import contract
from elicitation.models import Part
from tests.support.admin_support import (
    chat_client,
    make_part,
    make_person,
    make_staff,
    make_turn,
    reviewer_group,
)

PARTS = "/admin/elicitation/part/"
NOW = timezone.now()


@pytest.fixture
def parts(db, seeded):
    turn = make_turn(make_person("alice"))
    return {
        "pending": make_part(turn, 0, asked=NOW),
        "submitted": make_part(
            turn,
            1,
            asked=NOW,
            took=timedelta(seconds=30),
            state="submitted",
            response=contract.accept({"environment": "staging"}),
        ),
    }


def test_the_reviewer_group_may_view_everything_and_nothing_more(db):
    granted = reviewer_group().permissions.values_list("codename", flat=True)
    assert sorted(granted) == [
        "view_agent",
        "view_conversation",
        "view_message",
        "view_part",
        "view_step",
        "view_turn",
    ]


def test_a_person_without_staff_status_is_sent_to_the_admin_login(parts):
    client = chat_client(make_person("mallory"))
    for url in [PARTS, f"{PARTS}overview/", f"{PARTS}{parts['pending'].pk}/change/"]:
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith("/admin/login/?next=")


def test_staff_without_the_reviewer_group_sees_no_parts(parts):
    client = chat_client(make_staff("intern"))
    assert client.get(PARTS).status_code == 403
    assert client.get(f"{PARTS}overview/").status_code == 403


def test_a_reviewer_reads_everything(parts):
    client = chat_client(make_staff("ruth", reviewer=True))
    part = parts["submitted"]
    pages = [
        PARTS,
        f"{PARTS}{part.pk}/change/",
        f"{PARTS}overview/",
        "/admin/playground/conversation/",
        f"/admin/playground/conversation/{part.conversation_id}/change/",
        f"/admin/playground/turn/{part.turn_id}/change/",
        "/admin/playground/message/",
        "/admin/playground/agent/",
    ]
    for url in pages:
        assert client.get(url).status_code == 200, url
    assert 'name="_save"' not in client.get(f"{PARTS}{part.pk}/change/").content.decode()


def test_a_reviewer_cannot_cancel(parts):
    client = chat_client(make_staff("ruth", reviewer=True))
    pending = parts["pending"]
    assert "cancel_pending" not in client.get(PARTS).content.decode()

    client.post(PARTS, {"action": "cancel_pending", "index": "0", "_selected_action": pending.pk})
    client.post(
        f"{PARTS}{pending.pk}/change/",
        {"CHANGE_FORM-action": "cancel_pending", "_selected_action": pending.pk},
    )

    assert Part.objects.get(pk=pending.pk).state == Part.State.PENDING


def test_a_reviewer_cannot_change_add_or_delete(parts):
    client = chat_client(make_staff("ruth", reviewer=True))
    part = parts["pending"]
    conversation = f"/admin/playground/conversation/{part.conversation_id}"
    assert client.post(f"{PARTS}{part.pk}/change/", {"intent": "x"}).status_code == 403
    assert client.post(f"{PARTS}{part.pk}/delete/", {"post": "yes"}).status_code == 403
    assert client.get(f"{PARTS}add/").status_code == 403
    assert client.post(f"{conversation}/change/", {"title": "x"}).status_code == 403
    assert client.post(f"{conversation}/delete/", {"post": "yes"}).status_code == 403
    assert Part.objects.filter(pk=part.pk, intent="").exists()


def test_settled_parts_are_read_only_even_for_a_superuser(parts):
    client = chat_client(make_staff("root", superuser=True))
    settled = parts["submitted"]
    page = client.get(f"{PARTS}{settled.pk}/change/").content.decode()
    assert 'name="_save"' not in page
    response = client.post(f"{PARTS}{settled.pk}/change/", {"state": "pending"})
    assert response.status_code == 403
    assert client.get(f"{PARTS}add/").status_code == 403
    assert client.post(f"{PARTS}{settled.pk}/delete/", {"post": "yes"}).status_code == 403
    settled.refresh_from_db()
    assert settled.state == Part.State.SUBMITTED

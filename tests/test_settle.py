"""Settling a question: answers become chips; anything tampered with changes nothing."""

import pytest
from django.test import Client

from elicitation.models import Part
from elicitation.zones import set_zone
from playground.runs.models import Turn
from tests.conftest import make_conversation, make_question
from tests.support.runtime_helpers import answer

SCHEMA = {
    "type": "object",
    "properties": {
        "environment": {
            "type": "string",
            "title": "Environment",
            "oneOf": [
                {"const": "staging", "title": "Staging"},
                {"const": "production", "title": "Production"},
            ],
        },
        "replicas": {"type": "integer", "minimum": 1, "maximum": 9},
        "email": {"type": "string", "format": "email"},
        "notify": {"type": "boolean", "title": "Notify the team"},
        "regions": {
            "type": "array",
            "title": "Regions",
            "maxItems": 2,
            "items": {"type": "string", "enum": ["eu", "us", "ap"]},
        },
        "starts": {"type": "string", "format": "date-time"},
    },
    "required": ["environment"],
}
HTMX = {"HTTP_HX_REQUEST": "true"}


def pending_part(owner, schema=SCHEMA, actions=("accept", "decline", "cancel")) -> Part:
    conversation = make_conversation(owner, "schema-tester")
    turn = Turn.objects.create(
        conversation=conversation, index=0, text="ask", status=Turn.Status.DONE
    )
    payload = {"message": "Where should I deploy?", "requestedSchema": schema}
    return make_question(turn, payload, actions=actions)


@pytest.fixture
def part(alice, seeded):
    return pending_part(alice)


@pytest.fixture
def as_alice(client, alice):
    client.force_login(alice)
    return client


def unchanged(part: Part) -> bool:
    fresh = Part.objects.get(pk=part.pk)
    return fresh.state == Part.State.PENDING and fresh.response is None


def test_it_accepts_an_answer_and_shows_it_as_a_chip_with_option_titles(as_alice, part):
    response = answer(
        as_alice, part, environment="production", replicas="3", notify=["false", "true"]
    )
    assert response.status_code == 200
    part.refresh_from_db()
    assert part.state == Part.State.SUBMITTED
    assert part.response == {
        "action": "accept",
        "content": {"environment": "production", "replicas": 3, "notify": True},
    }
    html = response.content.decode()
    assert 'data-state="submitted"' in html
    assert "<dt>Environment</dt><dd>Production</dd>" in html
    assert "<dt>Notify the team</dt><dd>Yes</dd>" in html
    assert "Answered by alice" in html and "<form" not in html


@pytest.mark.parametrize(
    ("picked", "sent", "chip"),
    [
        ("2031-07-17T09:45", "2031-07-17T09:45:00+02:00", "Thu 17 Jul 2031, 09:45 CEST"),
        ("2031-11-20T09:45", "2031-11-20T09:45:00+01:00", "Thu 20 Nov 2031, 09:45 CET"),
    ],
)
def test_a_picked_date_time_is_read_in_the_owners_zone_for_that_date(
    as_alice, alice, part, picked, sent, chip
):
    set_zone(alice, "Europe/Berlin")
    # A browser offset from another season (what the page used to send) changes nothing.
    data = {"action": "accept", "answer.environment": "staging", "utc_offset": "-300"}
    response = as_alice.post(f"/parts/{part.pk}/settle", data | {"answer.starts": picked}, **HTMX)
    part.refresh_from_db()
    assert part.response["content"]["starts"] == sent
    assert f'<time datetime="{sent}" title="{sent}">{chip}</time>' in response.content.decode()


def test_a_local_time_the_clocks_skip_is_refused_next_to_the_field(as_alice, alice, part):
    set_zone(alice, "Europe/Berlin")
    data = {"action": "accept", "answer.environment": "staging"}
    response = as_alice.post(
        f"/parts/{part.pk}/settle", data | {"answer.starts": "2031-03-30T02:30"}, **HTMX
    )
    assert response.status_code == 422
    assert "02:30 on 30 Mar 2031 does not exist in Europe/Berlin" in response.content.decode()
    assert 'value="2031-03-30T02:30"' in response.content.decode()
    part.refresh_from_db()
    assert part.is_pending


def test_it_shows_errors_inline_and_keeps_everything_typed(as_alice, part):
    response = answer(
        as_alice,
        part,
        environment="staging",
        replicas="12",
        email="not-an-email",
        notify=["false", "true"],
        regions=["eu", "ap"],
    )
    assert response.status_code == 422
    html = response.content.decode()
    assert "Enter at most 9." in html
    assert "Enter a valid email address." in html
    assert 'value="12"' in html and 'value="not-an-email"' in html
    assert 'value="staging" checked' in html
    assert 'name="answer.notify" value="true" checked' in html
    assert 'value="eu" checked' in html and 'value="ap" checked' in html
    assert 'value="us" checked' not in html
    assert 'aria-invalid="true"' in html
    assert unchanged(part)


def test_submit_with_a_required_field_empty_is_refused(as_alice, part):
    response = answer(as_alice, part, email="ada@example.com")
    assert response.status_code == 422
    assert "This field is required." in response.content.decode()
    assert 'value="ada@example.com"' in response.content.decode()
    assert unchanged(part)


def test_it_declines(as_alice, part):
    response = answer(as_alice, part, "decline")
    assert response.status_code == 200
    assert "<strong>Declined</strong>" in response.content.decode()
    assert Part.objects.get(pk=part.pk).response == {"action": "decline"}


def test_it_cancels_even_when_the_agent_did_not_list_cancel(as_alice, alice, seeded):
    part = pending_part(alice, actions=("accept",))
    response = answer(as_alice, part, "cancel")
    assert response.status_code == 200
    assert "<strong>Cancelled</strong>" in response.content.decode()
    assert Part.objects.get(pk=part.pk).response == {"action": "cancel"}


def test_it_accepts_a_prose_reply_where_allowed_and_keeps_a_refused_one(as_alice, alice, seeded):
    part = pending_part(alice, actions=("accept", "respond", "cancel"))
    too_long = "x" * 10_001
    response = as_alice.post(
        f"/parts/{part.pk}/settle", {"action": "respond", "text": too_long}, **HTMX
    )
    assert response.status_code == 422
    assert too_long in response.content.decode()
    assert unchanged(part)
    response = as_alice.post(
        f"/parts/{part.pk}/settle", {"action": "respond", "text": "Staging, please"}, **HTMX
    )
    assert response.status_code == 200
    assert "Staging, please" in response.content.decode()
    assert Part.objects.get(pk=part.pk).response == {"action": "respond", "text": "Staging, please"}


# Tampering: a clear error, and nothing changes.


def test_it_refuses_a_field_the_question_does_not_have(as_alice, part):
    response = answer(as_alice, part, environment="staging", is_admin="true")
    assert response.status_code == 400
    assert "This question has no field named &#x27;is_admin&#x27;." in response.content.decode()
    assert unchanged(part)


def test_it_refuses_a_value_of_the_wrong_type(as_alice, part):
    response = answer(as_alice, part, environment="staging", replicas="three", notify="maybe")
    assert response.status_code == 422
    html = response.content.decode()
    assert "Enter a whole number." in html and "Choose yes or no." in html
    assert unchanged(part)


def test_it_refuses_a_value_outside_the_options(as_alice, part):
    response = answer(as_alice, part, environment="mars", regions=["eu", "moon"])
    assert response.status_code == 422
    assert "Choose one of the listed options." in response.content.decode()
    assert unchanged(part)


def test_it_refuses_an_action_the_question_does_not_offer(as_alice, alice, seeded):
    part = pending_part(alice, actions=("accept", "cancel"))
    for action in ("decline", "respond", "delete"):
        response = answer(as_alice, part, action)
        assert response.status_code == 400
        assert "That answer is not offered for this question." in response.content.decode()
    assert unchanged(part)


def test_a_second_answer_gets_409_with_the_chip_and_changes_nothing(as_alice, part):
    answer(as_alice, part, environment="staging")
    response = answer(as_alice, part, environment="production")
    assert response.status_code == 409
    html = response.content.decode()
    assert "<dd>Staging</dd>" in html
    assert "This question was already answered, so your answer was not saved." in html
    assert Part.objects.get(pk=part.pk).response["content"] == {
        "environment": "staging",  # "notify" was not answered, so it is not sent
    }


def test_someone_elses_part_is_a_404(client, bob, part):
    client.force_login(bob)
    assert answer(client, part, environment="staging").status_code == 404
    assert answer(client, part, "cancel").status_code == 404
    assert unchanged(part)


def test_a_post_without_the_csrf_token_is_refused(alice, part):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    response = answer(client, part, environment="staging")
    assert response.status_code == 403
    assert unchanged(part)


def test_it_rejects_get_and_anonymous_posts(client, part):
    # From the chat (htmx) a logged-out answer is told so inline; a plain POST is sent to log in.
    assert answer(client, part, environment="staging").status_code == 401
    plain = client.post(f"/parts/{part.pk}/settle", {"action": "accept"})
    assert plain.status_code == 302 and plain["Location"].startswith("/accounts/login/")
    client.force_login(part.conversation.owner)
    assert client.get(f"/parts/{part.pk}/settle").status_code == 405
    assert unchanged(part)

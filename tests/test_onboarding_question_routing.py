"""The wizard's card says where the new agent's questions go: to its owner unless they choose a
person or a group, checked like an agent's `ask=[...]`."""

from html import unescape

import pytest
from django.contrib.auth.models import Group

from elicitation.models import Part
from playground.runs.models import Agent
from tests.support.onboarding_support import COMPLETE, open_wizard
from tests.support.runtime_helpers import answer, pending, send

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def wizard(client, alice, bob):
    release = Group.objects.create(name="release-managers")
    alice.groups.add(release)
    bob.groups.add(release)
    client.force_login(alice)
    conversation = open_wizard(client)
    send(client, conversation, COMPLETE)
    return conversation


def test_by_default_its_questions_go_to_the_owner(client, wizard):
    card = pending(wizard)
    assert card.value["questions_to"] == "owner"
    html = client.get(f"/c/{wizard.pk}/").content.decode()
    assert "Its questions and approvals go to" in html

    assert answer(client, card).status_code == 200
    assert "routing" not in Agent.objects.get(pk=wizard.agent_id).config


def test_its_questions_can_go_to_a_group_of_the_owners(client, wizard):
    card = pending(wizard)
    edited = card.value | {"questions_to": "group", "questions_to_name": "release-managers"}
    assert answer(client, card, **edited).status_code == 200
    routing = Agent.objects.get(pk=wizard.agent_id).config["routing"]
    assert routing == {
        "questions": ["group:release-managers"],
        "approvals": ["group:release-managers"],
    }


def test_its_questions_can_go_to_a_person_who_shares_a_group(client, wizard):
    card = pending(wizard)
    edited = card.value | {"questions_to": "person", "questions_to_name": "bob"}
    assert answer(client, card, **edited).status_code == 200
    assert Agent.objects.get(pk=wizard.agent_id).config["routing"]["questions"] == ["user:bob"]


@pytest.mark.parametrize(
    ("kind", "name", "error"),
    [
        ("group", "finance", 'No group named "finance" that this agent may ask'),
        ("person", "zed", 'No person named "zed" that this agent may ask'),
        ("person", "", "Type the person's username, or send its questions to you."),
    ],
)
def test_an_unknown_name_keeps_the_card_open_with_the_error_and_what_was_typed(
    client, wizard, kind, name, error
):
    card = pending(wizard)
    edited = card.value | {
        "name": "Release digest",
        "questions_to": kind,
        "questions_to_name": name,
    }
    refused = answer(client, card, **edited)
    assert refused.status_code == 422
    html = unescape(refused.content.decode())
    assert error in html
    assert 'value="Release digest"' in html
    if name:
        assert f'name="answer.questions_to_name" type="text" value="{name}"' in html
    card.refresh_from_db()
    assert card.state == Part.State.PENDING
    assert Agent.objects.get(pk=wizard.agent_id).is_draft


def test_a_group_the_owner_is_not_in_reads_like_one_that_does_not_exist(client, wizard, bob):
    Group.objects.create(name="finance").user_set.add(bob)  # bob's, not alice's
    card = pending(wizard)
    edited = card.value | {"questions_to": "group", "questions_to_name": "finance"}
    html = unescape(answer(client, card, **edited).content.decode())
    assert 'No group named "finance" that this agent may ask' in html

"""The API's `assignees`: an external agent's question routed to people and groups."""

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from elicitation.models import Part
from tests.support.api_support import ASK, ApiClient
from tests.support.runtime_helpers import answer

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def managers(alice, bob):
    group = Group.objects.create(name="release-managers")
    group.user_set.add(alice, bob)
    return group


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_routed_request_waits_in_the_assignees_inbox_and_they_answer_it(alice, bob, managers):
    api = ApiClient(alice)
    conversation_id = api.open_conversation()
    asked = api.post(
        f"/conversations/{conversation_id}/requests",
        {**ASK, "assignees": ["group:release-managers"]},
    )
    assert asked.status_code == 201, asked.content
    part = Part.objects.get(pk=asked.json()["id"])
    bob_client = logged_in(bob)
    assert f'id="inbox-item-{part.pk}"' in bob_client.get("/inbox/").content.decode()
    assert answer(bob_client, part, env="staging").status_code == 200
    settled = api.get(f"/requests/{part.pk}").json()
    assert settled["envelope"] == {"action": "accept", "content": {"env": "staging"}}


@pytest.mark.parametrize("name", ["user:mallory", "user:carol"])
def test_a_name_the_token_owner_may_not_address_is_422_with_one_reason(alice, managers, name):
    User.objects.create_user("carol", password="carol-password-1")  # exists, shares no group
    api = ApiClient(alice)
    conversation_id = api.open_conversation()
    asked = api.post(f"/conversations/{conversation_id}/requests", {**ASK, "assignees": [name]})
    assert asked.status_code == 422
    assert asked.json()["detail"] == (
        f'elicitation: unsupported payload — ask has "{name}": '
        "no person or group by that name this agent may ask"
    )
    assert Part.objects.routed_to(User.objects.get(username="carol")).count() == 0

"""Questions routed to people and groups: who may be asked, who may see and answer, who won."""

import threading

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import Group, User
from django.db import connection
from django.test import Client
from django.utils import timezone

from elicitation import contract
from elicitation.models import Part
from elicitation.settle import settle_part
from playground.asgi import application
from playground.inbox.routing import audience_of
from playground.runs.background_jobs import escalate
from tests.support.runtime_helpers import answer, pending, said, send, start

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def people(alice, bob):
    """alice starts runs; bob and dana are release managers with her; carol is no one's."""
    managers = Group.objects.create(name="release-managers")
    dana = User.objects.create_user("dana", password="dana-password-1")
    carol = User.objects.create_user("carol", password="carol-password-1")
    managers.user_set.add(alice, bob, dana)
    return {"alice": alice, "bob": bob, "carol": carol, "dana": dana}


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def ask_managers(people, text="group:release-managers"):
    conversation = start(people["alice"], "test-routed")
    send(logged_in(people["alice"]), conversation, text)
    return conversation


def test_a_group_member_sees_the_question_and_answers_it_read_only(people):
    conversation = ask_managers(people)
    part = pending(conversation)
    assert part.ask == ["group:release-managers"]

    owner_page = logged_in(people["alice"]).get(conversation.get_absolute_url()).content.decode()
    assert "Waiting for Release managers" in owner_page
    assert 'id="composer"' in owner_page

    bob = logged_in(people["bob"])
    page = bob.get(conversation.get_absolute_url()).content.decode()
    assert "Which version should I release?" in page
    assert 'id="composer"' not in page and "not write in it" in page
    response = answer(bob, part, version="2.4.0")
    assert response.status_code == 200
    assert "Answered by bob" in response.content.decode()
    assert said(conversation) == ["Releasing 2.4.0."]
    assert bob.post(f"/c/{conversation.pk}/send", {"text": "hi"}).status_code == 404


def test_someone_outside_the_audience_gets_404_everywhere(people):
    conversation = ask_managers(people)
    part = pending(conversation)
    carol = logged_in(people["carol"])
    assert carol.get(conversation.get_absolute_url()).status_code == 404
    assert answer(carol, part, version="6.6.6").status_code == 404
    assert carol.get(f"/q/{part.pk}/").status_code == 404
    assert carol.get(f"/parts/{part.pk}/wire").status_code == 404
    assert pending(conversation).response is None


def test_the_deep_link_opens_the_conversation_at_the_question(people):
    conversation = ask_managers(people)
    part = pending(conversation)
    response = logged_in(people["bob"]).get(f"/q/{part.pk}/")
    assert response.status_code == 302
    assert response["Location"] == f"{conversation.get_absolute_url()}#part-{part.pk}"
    anonymous = Client().get(f"/q/{part.pk}/")
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/accounts/login/")


async def test_the_websocket_refuses_someone_outside_the_audience(people):
    conversation = await sync_to_async(ask_managers)(people)
    for name, allowed in (("bob", True), ("carol", False)):
        cookie = await sync_to_async(session_cookie)(people[name])
        communicator = WebsocketCommunicator(
            application,
            f"/ws/c/{conversation.pk}/",
            headers=[
                (b"origin", b"http://127.0.0.1:8000"),
                (b"host", b"127.0.0.1:8000"),
                (b"cookie", cookie),
            ],
        )
        connected, _ = await communicator.connect(timeout=10)
        assert connected is allowed
        if connected:
            assert "Which version should I release?" in await communicator.receive_from(timeout=10)
        await communicator.disconnect()


def session_cookie(user) -> bytes:
    return f"sessionid={logged_in(user).cookies['sessionid'].value}".encode()


@pytest.mark.parametrize(
    "names", ["group:nobody-has-this", "group:finance", "user:zed", "user:carol"]
)
def test_unknown_and_not_allowed_names_give_the_same_reason_and_ask_nobody(people, names):
    Group.objects.create(name="finance")  # exists, but alice is not in it
    conversation = ask_managers(people, names)
    part = Part.objects.get(conversation=conversation)
    assert part.state == Part.State.DEGRADED
    assert part.degraded_reason == (
        f'ask has "{names}": no person or group by that name this agent may ask'
    )
    assert said(conversation) == [
        f"Not releasing: elicitation: unsupported payload — {part.degraded_reason}"
    ]
    assert not part.assigned_users.exists() and not part.assigned_groups.exists()
    assert Part.objects.answerable_by(people["carol"]).count() == 0


def test_a_malformed_name_says_how_names_are_written(people):
    conversation = ask_managers(people, "release-managers")
    part = Part.objects.get(conversation=conversation)
    assert part.degraded_reason == (
        'ask has "release-managers": a name starts with "group:" or "user:"'
    )


def test_the_allow_list_lets_agents_ask_people_outside_the_owners_groups(people, settings):
    settings.ROUTING_ALLOWED_USERS = ["carol"]
    conversation = ask_managers(people, "user:carol")
    part = pending(conversation)
    assert [user.get_username() for user in audience_of(part)] == ["alice", "carol"]
    assert answer(logged_in(people["carol"]), part, version="1.0").status_code == 200


def test_audience_of_is_the_owner_and_every_member_of_the_groups(people):
    part = pending(ask_managers(people, "group:release-managers, user:bob"))
    assert [user.get_username() for user in audience_of(part)] == ["alice", "bob", "dana"]


def test_an_approval_that_needs_someone_else_is_refused_to_the_starter(people):
    conversation = start(people["alice"], "test-routed-approval")
    alice = logged_in(people["alice"])
    send(alice, conversation, "deploy")
    part = pending(conversation)
    page = alice.get(conversation.get_absolute_url()).content.decode()
    assert "Waiting for Release managers (someone other than alice)" in page
    assert "Approve for this conversation" not in page

    refused = answer(alice, part, scope="once")
    assert refused.status_code == 409
    assert "Someone other than you must answer this question" in refused.content.decode()
    assert pending(conversation).pk == part.pk
    assert Part.objects.answerable_by(people["alice"]).count() == 0

    assert answer(logged_in(people["dana"]), part, scope="once").status_code == 200
    assert said(conversation) == ["Deploying."]


def test_a_routed_approval_is_never_satisfied_by_an_earlier_grant(people):
    conversation = start(people["alice"], "test-routed-approval")
    alice = logged_in(people["alice"])
    send(alice, conversation, "grant")
    assert answer(alice, pending(conversation), scope="conversation").status_code == 200
    send(alice, conversation, "grant")  # the grant holds: no second question
    assert Part.objects.filter(conversation=conversation).count() == 1
    send(alice, conversation, "deploy")
    routed = pending(conversation)
    assert routed.ask == ["group:release-managers"]
    # The second turn used the grant; the third still waits for a release manager.
    assert said(conversation) == [
        "Deploying.",
        "Approved earlier in this conversation: Deploy?",
        "Deploying.",
    ]


def test_two_assignees_answering_at_once_make_one_winner(people):
    conversation = ask_managers(people)
    part = pending(conversation)
    barrier, results = threading.Barrier(2), {}

    def assignee(name: str) -> None:
        barrier.wait()
        try:
            results[name] = answer(logged_in(people[name]), part, version=f"by {name}").status_code
        finally:
            connection.close()

    threads = [threading.Thread(target=assignee, args=(name,)) for name in ("bob", "dana")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(results.values()) == [200, 409]
    winner = next(name for name, status in results.items() if status == 200)
    part.refresh_from_db()
    assert part.settled_by.get_username() == winner
    assert said(conversation) == [f"Releasing by {winner}."]


def test_settle_part_itself_still_has_one_winner_for_routed_parts(people):
    part = pending(ask_managers(people))
    assert settle_part(part, contract.cancel(), user=people["bob"]) is not None
    assert settle_part(part, contract.cancel(), user=people["dana"]) is None


def test_an_agents_configuration_routes_its_approvals_by_default(people):
    conversation = start(people["alice"], "test-approval")
    conversation.agent.config = {"routing": {"approvals": ["group:release-managers"]}}
    conversation.agent.save()
    send(logged_in(people["alice"]), conversation, "/tmp/report.txt")
    part = pending(conversation)
    assert part.ask == ["group:release-managers"]
    assert answer(logged_in(people["bob"]), part, scope="once").status_code == 200
    assert said(conversation) == ["Deleted."]


def test_a_bad_name_in_the_configuration_degrades_like_one_from_the_agent(people):
    conversation = start(people["alice"], "test-greeter")
    conversation.agent.config = {"routing": {"questions": ["user:zed"]}}
    conversation.agent.save()
    send(logged_in(people["alice"]), conversation, "hi")
    part = Part.objects.get(conversation=conversation)
    assert part.degraded_reason.endswith("no person or group by that name this agent may ask")


def test_a_question_still_waiting_is_escalated_once_to_more_people(people):
    Group.objects.get(name="release-managers").user_set.remove(people["bob"])
    people["bob"].groups.add(Group.objects.create(name="on-call"))
    people["alice"].groups.add(Group.objects.get(name="on-call"))
    conversation = start(people["alice"], "test-escalating")
    send(logged_in(people["alice"]), conversation, "release")
    part = pending(conversation)
    dana = logged_in(people["dana"])
    assert answer(dana, part, version="1").status_code == 404
    assert escalate() == []  # not due yet

    Part.objects.filter(pk=part.pk).update(escalate_at=timezone.now())  # the minute is up
    assert escalate() == [part.pk]
    assert escalate() == []  # once
    part.refresh_from_db()
    assert part.ask == ["user:bob", "group:release-managers"] and part.escalated_at
    page = logged_in(people["alice"]).get(conversation.get_absolute_url()).content.decode()
    assert "Waiting for bob and Release managers" in page
    assert answer(dana, part, version="1.1").status_code == 200
    assert said(conversation) == ["Releasing 1.1."]


def test_escalating_to_a_group_the_owner_may_not_ask_degrades_at_once(people):
    Group.objects.create(name="on-call").user_set.add(people["alice"], people["bob"])
    Group.objects.get(name="release-managers").user_set.remove(people["alice"])
    conversation = start(people["alice"], "test-escalating")
    send(logged_in(people["alice"]), conversation, "release")
    part = Part.objects.get(conversation=conversation)
    assert part.state == Part.State.DEGRADED
    assert part.degraded_reason == (
        'escalate_to has "group:release-managers": '
        "no person or group by that name this agent may ask"
    )
    assert said(conversation) == ["Not now."]


def test_the_admin_shows_who_was_asked_and_the_escalation(people, admin_client):
    conversation = start(people["alice"], "test-escalating")
    send(logged_in(people["alice"]), conversation, "release")
    part = pending(conversation)
    Part.objects.filter(pk=part.pk).update(escalate_at=timezone.now())
    escalate()
    page = admin_client.get(f"/admin/elicitation/part/{part.pk}/change/").content.decode()
    assert "bob and Release managers (and the conversation&#x27;s owner)" in page
    assert "Escalated to group:release-managers" in page

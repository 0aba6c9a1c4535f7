"""The inbox: what waits for a person, across their conversations and what was routed to them."""

import asyncio

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import Group, User
from django.test import Client

from elicitation.models import Part
from playground.asgi import application
from tests.support.runtime_helpers import answer, pending, send, start

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def people(alice, bob):
    managers = Group.objects.create(name="release-managers")
    managers.user_set.add(alice, bob)
    return {"alice": alice, "bob": bob}


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def ask(owner, text: str, slug: str = "test-routed"):
    conversation = start(owner, slug)
    send(logged_in(owner), conversation, text)
    return conversation


def test_the_inbox_lists_my_questions_and_those_routed_to_me_oldest_first(people):
    alice, bob = people["alice"], people["bob"]
    own = ask(bob, "hi", slug="test-greeter")  # bob's own conversation
    routed = ask(alice, "group:release-managers")
    page = logged_in(bob).get("/inbox/").content.decode()
    first, second = pending(own), pending(routed)
    assert page.index(f'id="inbox-item-{first.pk}"') < page.index(f'id="inbox-item-{second.pk}"')
    assert "of alice" in page and "also for alice, Release managers" in page
    # Answerable right here, without script: a plain form that posts to the same settle view.
    assert f'action="/parts/{second.pk}/settle"' in page
    assert f'href="/q/{second.pk}/"' in page
    assert 'id="inbox-count" class="badge inbox-count" data-state="count-2"' in page


def test_the_header_counts_what_waits_on_every_page(people):
    ask(people["alice"], "user:bob")
    page = logged_in(people["bob"]).get("/settings/").content.decode()
    assert 'data-waiting="1"' in page and 'ws-connect="/ws/inbox/"' in page
    assert 'data-waiting="1"' in logged_in(people["alice"]).get("/settings/").content.decode()


def test_an_answered_question_leaves_every_inbox_it_was_in(people):
    conversation = ask(people["alice"], "group:release-managers")
    assert answer(logged_in(people["bob"]), pending(conversation), version="3").status_code == 200
    for name in ("alice", "bob"):
        page = logged_in(people[name]).get("/inbox/").content.decode()
        assert "Nothing is waiting for you." in page


def test_the_filters_narrow_the_list(people):
    alice, bob = people["alice"], people["bob"]
    ask(bob, "hi", slug="test-greeter")  # bob's own, asked of nobody else
    ask(alice, "group:release-managers")
    ask(alice, "user:bob")
    client = logged_in(bob)

    def listed(query: str) -> int:
        return client.get(f"/inbox/?{query}").content.decode().count('class="inbox-item card"')

    assert listed("") == 3
    assert listed("scope=mine") == 1
    assert listed("scope=me") == 1
    assert listed("scope=groups") == 1
    assert listed("kind=approval") == 0
    assert listed("kind=question") == 3
    assert listed("agent=test-routed") == 2
    assert listed("agent=nope") == 0
    assert listed("scope=../../etc") == 3  # an unknown filter is ignored
    newest = client.get("/inbox/?order=newest").content.decode()
    oldest = client.get("/inbox/").content.decode()
    parts = list(Part.objects.order_by("created_at").values_list("pk", flat=True))
    assert newest.index(f"inbox-item-{parts[-1]}") < newest.index(f"inbox-item-{parts[0]}")
    assert oldest.index(f"inbox-item-{parts[0]}") < oldest.index(f"inbox-item-{parts[-1]}")


def test_a_question_that_needs_someone_else_is_not_in_the_starters_inbox(people):
    conversation = start(people["alice"], "test-routed-approval")
    send(logged_in(people["alice"]), conversation, "deploy")
    assert "Nothing is waiting" in logged_in(people["alice"]).get("/inbox/").content.decode()
    assert "Approval" in logged_in(people["bob"]).get("/inbox/").content.decode()


def test_the_inbox_needs_a_login():
    response = Client().get("/inbox/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def join(user, group: str) -> None:
    Group.objects.get(name=group).user_set.add(user)


def socket(path: str, cookie: bytes) -> WebsocketCommunicator:
    headers = [(b"origin", b"http://127.0.0.1:8000"), (b"host", b"127.0.0.1:8000")]
    return WebsocketCommunicator(application, path, headers=[*headers, (b"cookie", cookie)])


def cookie_of(user) -> bytes:
    return f"sessionid={logged_in(user).cookies['sessionid'].value}".encode()


async def test_the_inbox_socket_pushes_new_questions_and_answers(people):
    bob = people["bob"]
    communicator = socket("/ws/inbox/?list=1", await sync_to_async(cookie_of)(bob))
    connected, _ = await communicator.connect(timeout=10)
    assert connected
    assert 'data-waiting="0"' in await communicator.receive_from(timeout=10)

    conversation = await sync_to_async(ask)(people["alice"], "user:bob")
    pushed = await communicator.receive_from(timeout=10)
    part = await sync_to_async(pending)(conversation)
    assert 'data-waiting="1"' in pushed
    assert f'id="inbox-item-{part.pk}"' in pushed and 'data-state="pending"' in pushed

    alice = await sync_to_async(logged_in)(people["alice"])
    await sync_to_async(answer)(alice, part, version="9")
    pushed = await communicator.receive_from(timeout=10)
    assert 'data-waiting="0"' in pushed and 'data-state="submitted"' in pushed
    assert "Answered by alice" in pushed
    await communicator.disconnect()


async def test_the_headers_count_follows_groups_joined_and_questions_asked_while_it_is_open(people):
    """The socket compiles its count once: who the person is stays, what waits for them and
    which groups they are in is read at each count."""
    carol = await sync_to_async(User.objects.create_user)("carol", password="carol-password-1")
    communicator = socket("/ws/inbox/", await sync_to_async(cookie_of)(carol))
    connected, _ = await communicator.connect(timeout=10)
    assert connected
    assert 'data-waiting="0"' in await communicator.receive_from(timeout=10)

    await sync_to_async(ask)(people["alice"], "group:release-managers")  # not hers yet
    await sync_to_async(join)(carol, "release-managers")
    routed = await sync_to_async(ask)(people["alice"], "user:carol")
    await count_pushed(communicator, 2)

    await sync_to_async(answer)(
        await sync_to_async(logged_in)(carol), await sync_to_async(pending)(routed), version="1"
    )
    await count_pushed(communicator, 1)
    await communicator.disconnect()


async def count_pushed(communicator: WebsocketCommunicator, count: int) -> None:
    """Read the socket's pushes until one shows `count` (a change may be pushed more than
    once); a count that never comes fails the test after 10 s."""
    async with asyncio.timeout(10):
        while f'data-waiting="{count}"' not in await communicator.receive_from(timeout=10):
            pass


async def test_the_inbox_socket_refuses_the_logged_out():
    communicator = WebsocketCommunicator(
        application,
        "/ws/inbox/",
        headers=[(b"origin", b"http://127.0.0.1:8000"), (b"host", b"127.0.0.1:8000")],
    )
    connected, _ = await communicator.connect(timeout=10)
    assert not connected

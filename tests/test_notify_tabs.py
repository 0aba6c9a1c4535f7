"""Whoever has the conversation open in a tab is not emailed about its question; a tab open on
another conversation shows a browser notification (pushed over its socket) and the email goes
out too."""

from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User
from django.core import mail

from playground.notify import sender
from playground.notify.models import Tab
from playground.runs.models import Turn
from tests.conftest import make_conversation, make_question
from tests.test_conversation_socket import session_cookie, socket

pytestmark = pytest.mark.django_db(transaction=True)

PAYLOAD = {
    "message": "Ship <b>release</b> 2.4?",
    "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
}


@sync_to_async
def conversation_of(person: User):
    return make_conversation(person, "schema-tester")


@sync_to_async
def ask(conversation):
    turn = Turn.objects.create(conversation=conversation, index=0, text="ask", status="waiting")
    return make_question(turn, PAYLOAD)


@pytest.fixture
def ada(seeded) -> User:
    return User.objects.create_user("ada", email="ada@example.com")


async def test_a_question_open_in_a_tab_is_not_emailed(ada):
    conversation = await conversation_of(ada)
    tab = socket(conversation.pk, await sync_to_async(session_cookie)(ada))
    assert (await tab.connect(timeout=10))[0]
    await tab.receive_from(timeout=30)  # the resync
    part = await ask(conversation)

    await sender.send_due(part.created_at + timedelta(seconds=61))

    assert mail.outbox == []
    await tab.disconnect()
    assert not await Tab.objects.aexists()


async def test_a_tab_on_another_conversation_shows_a_browser_notification(ada):
    elsewhere, asking = await conversation_of(ada), await conversation_of(ada)
    tab = socket(elsewhere.pk, await sync_to_async(session_cookie)(ada))
    assert (await tab.connect(timeout=10))[0]
    await tab.receive_from(timeout=30)
    part = await ask(asking)

    await sender.send_due(part.created_at + timedelta(seconds=61))

    pushed = await tab.receive_from(timeout=30)
    assert 'id="browser-notice"' in pushed and 'hx-swap-oob="true"' in pushed
    assert 'data-title="Schema tester asks: Ship &lt;b&gt;release&lt;/b&gt; 2.4?"' in pushed
    assert f'data-url="http://127.0.0.1:8000/q/{part.pk}/"' in pushed
    [email] = mail.outbox
    assert email.to == ["ada@example.com"]
    await tab.disconnect()


async def test_a_closed_tab_no_longer_keeps_the_email_back(ada):
    conversation = await conversation_of(ada)
    tab = socket(conversation.pk, await sync_to_async(session_cookie)(ada))
    assert (await tab.connect(timeout=10))[0]
    await tab.receive_from(timeout=30)
    await tab.disconnect()
    part = await ask(conversation)

    await sender.send_due(part.created_at + timedelta(seconds=61))

    assert len(mail.outbox) == 1


async def test_a_tab_whose_process_died_does_not_keep_the_email_back(ada):
    conversation = await conversation_of(ada)
    part = await ask(conversation)
    long_ago = part.created_at - timedelta(minutes=10)
    await Tab.objects.acreate(
        channel_name="gone", user=ada, conversation_id=conversation.pk, seen_at=long_ago
    )

    await sender.send_due(part.created_at + timedelta(seconds=61))

    assert len(mail.outbox) == 1

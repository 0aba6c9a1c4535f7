"""The API's requests: ask, read, wait, cancel and list, as an external agent sees them."""

import asyncio

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.test import Client

from elicitation.models import Part
from playground.api.external import KIND
from playground.chat.push import group_for
from playground.runs.models import Conversation, Message, Turn
from tests.support.api_support import ASK, ApiClient
from tests.support.runtime_helpers import answer

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def api(alice) -> ApiClient:
    return ApiClient(alice)


def open_tab(conversation_id: int):
    """Join the conversation's group as an open tab's socket does; return its next push."""
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(group_for(conversation_id), channel)

    async def next_push() -> str:
        return (await asyncio.wait_for(layer.receive(channel), 5))["html"]

    return async_to_sync(next_push)


@pytest.fixture
def person(alice) -> Client:
    client = Client()
    client.force_login(alice)
    return client


def test_it_opens_a_conversation_the_person_can_open_in_a_browser(api, person):
    response = api.post("/conversations", {"agentName": "Deploy bot", "title": "Friday deploy"})
    assert response.status_code == 201
    body = response.json()
    assert body["agentName"] == "Deploy bot"
    assert body["url"] == f"http://testserver/c/{body['id']}/"
    conversation = Conversation.objects.get(pk=body["id"])
    assert conversation.agent.kind == KIND and conversation.title == "Friday deploy"
    assert person.get(body["url"]).status_code == 200


def test_a_question_is_a_live_form_in_the_chat_and_its_answer_the_same_envelope(api, person):
    conversation_id = api.open_conversation()
    asked = api.post(f"/conversations/{conversation_id}/requests", ASK)
    assert asked.status_code == 201
    assert asked.json()["state"] == "pending" and asked.json()["envelope"] is None
    page = person.get(f"/c/{conversation_id}/").content.decode()
    assert "Which environment should I deploy to?" in page and 'data-state="pending"' in page

    answer(person, Part.objects.get(pk=asked.json()["id"]), env="production")

    settled = api.get(f"/requests/{asked.json()['id']}").json()
    assert settled["state"] == "submitted"
    assert settled["envelope"] == {"action": "accept", "content": {"env": "production"}}


def test_a_wait_returns_the_settled_request_at_once(api, person):
    conversation_id = api.open_conversation()
    part_id = api.post(f"/conversations/{conversation_id}/requests", ASK).json()["id"]
    answer(person, Part.objects.get(pk=part_id), action="decline")
    assert api.get(f"/requests/{part_id}", wait=60).json()["envelope"] == {"action": "decline"}


def test_a_wait_that_runs_out_returns_the_request_still_pending(api):
    conversation_id = api.open_conversation()
    part_id = api.post(f"/conversations/{conversation_id}/requests", ASK).json()["id"]
    assert api.get(f"/requests/{part_id}", wait=1).json()["state"] == "pending"


def test_an_unsupported_payload_is_stored_degraded_and_answered_422_with_the_reason(api):
    conversation_id = api.open_conversation()
    payload = {
        "message": "Log in",
        "requestedSchema": {"type": "object", "properties": {"password": {"type": "string"}}},
    }
    response = api.post(f"/conversations/{conversation_id}/requests", payload)
    assert response.status_code == 422
    problem = response.json()
    assert problem["detail"].startswith("elicitation: unsupported payload — ")
    assert '"password"' in problem["detail"]
    part = Part.objects.get(pk=problem["requestId"])
    assert part.state == Part.State.DEGRADED and "password" in part.degraded_reason


def test_allowed_actions_intent_and_value_reach_the_form(api):
    conversation_id = api.open_conversation()
    body = {**ASK, "allowedActions": ["accept"], "intent": "deploy", "value": {"env": "staging"}}
    part_id = api.post(f"/conversations/{conversation_id}/requests", body).json()["id"]
    part = Part.objects.get(pk=part_id)
    assert part.allowed_actions == ["accept", "cancel"]  # cancel is always offered
    assert (part.intent, part.value) == ("deploy", {"env": "staging"})


def test_cancel_settles_a_pending_request_and_refuses_a_settled_one(api, person):
    conversation_id = api.open_conversation()
    part_id = api.post(f"/conversations/{conversation_id}/requests", ASK).json()["id"]
    cancelled = api.post(f"/requests/{part_id}/cancel")
    assert cancelled.status_code == 200 and cancelled.json()["envelope"] == {"action": "cancel"}
    assert 'data-state="cancelled"' in person.get(f"/c/{conversation_id}/").content.decode()
    again = api.post(f"/requests/{part_id}/cancel")
    assert again.status_code == 409 and "already cancelled" in again.json()["detail"]


def test_it_lists_a_conversations_requests_with_states_and_envelopes(api):
    conversation_id = api.open_conversation()
    first = api.post(f"/conversations/{conversation_id}/requests", ASK).json()["id"]
    second = api.post(f"/conversations/{conversation_id}/requests", ASK).json()["id"]
    api.post(f"/requests/{second}/cancel")
    listed = api.get(f"/conversations/{conversation_id}/requests").json()
    assert [(r["id"], r["state"]) for r in listed] == [(first, "pending"), (second, "cancelled")]


def test_agent_messages_are_shown_as_text_in_the_chat(api, person):
    conversation_id = api.open_conversation()
    sent = api.post(f"/conversations/{conversation_id}/messages", {"text": "**Hi** <b>x</b>"})
    assert sent.status_code == 201
    assert Message.objects.get(pk=sent.json()["id"]).role == Message.Role.AGENT
    page = person.get(f"/c/{conversation_id}/").content.decode()
    assert "<strong>Hi</strong>" in page and "<b>x</b>" not in page


def test_the_persons_messages_are_read_after_a_cursor(api, person):
    conversation_id = api.open_conversation()
    api.post(f"/conversations/{conversation_id}/messages", {"text": "What should I deploy?"})
    for text in ("The API", "Then the docs"):
        person.post(f"/c/{conversation_id}/send", {"text": text})
    first = api.get(f"/conversations/{conversation_id}/messages").json()
    assert [m["text"] for m in first["messages"]] == ["The API", "Then the docs"]
    later = api.get(f"/conversations/{conversation_id}/messages", after=first["cursor"], wait=1)
    assert later.json() == {"messages": [], "cursor": first["cursor"]}
    # The external agent's turns finish at once: nothing runs here for them.
    assert set(Turn.objects.values_list("status", flat=True)) == {Turn.Status.DONE}


def test_a_waiting_read_returns_a_message_already_sent(api, person):
    conversation_id = api.open_conversation()
    person.post(f"/c/{conversation_id}/send", {"text": "Ready when you are"})
    read = api.get(f"/conversations/{conversation_id}/messages", wait=60).json()
    assert [m["text"] for m in read["messages"]] == ["Ready when you are"]


def test_an_agent_that_speaks_first_shows_its_turn_before_its_first_words(api):
    conversation_id = api.open_conversation()
    next_push = open_tab(conversation_id)
    api.post(f"/conversations/{conversation_id}/messages", {"text": "Deploying now."})
    turn = Turn.objects.get(conversation_id=conversation_id)
    pushed = next_push()
    # The tab showed no turn yet: the section comes first, then the message goes into it.
    assert pushed.index(f'id="turn-{turn.pk}"') < pushed.index(f"#turn-{turn.pk}-items")
    assert "Deploying now." in pushed

    api.post(f"/conversations/{conversation_id}/requests", ASK)
    pushed = next_push()
    assert f'id="turn-{turn.pk}"' not in pushed  # the turn is shown already
    assert "Which environment should I deploy to?" in pushed


def test_an_agent_that_asks_first_shows_its_turn_with_the_question(api):
    conversation_id = api.open_conversation()
    next_push = open_tab(conversation_id)
    api.post(f"/conversations/{conversation_id}/requests", ASK)
    turn = Turn.objects.get(conversation_id=conversation_id)
    pushed = next_push()
    assert pushed.index(f'id="turn-{turn.pk}"') < pushed.index("Which environment")

"""The conversation page costs the same number of queries however many parts and steps it
shows."""

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from elicitation import contract
from elicitation.models import Part
from playground.runs.models import Message, Step, Turn
from tests.conftest import make_conversation

SCHEMA = {
    "type": "object",
    "properties": {"env": {"type": "string", "enum": ["staging", "production"]}},
}


def add_turn(conversation, index: int, owner) -> None:
    """Add a turn with a message, one part in each state and a step."""
    turn = Turn.objects.create(conversation=conversation, index=index, text=f"turn {index}")
    Message.objects.create(turn=turn, call_index=0, text="Working on it.")
    now = timezone.now()
    Step.objects.create(
        turn=turn, call_index=6, name="look it up", started_at=now, finished_at=now, outcome="ok"
    )
    payload = {"message": "Where?", "requestedSchema": SCHEMA}
    normalized = contract.parse_request(payload).to_dict()
    settled = {"settled_at": timezone.now(), "settled_by": owner}
    states = [
        {"state": Part.State.SUBMITTED, "response": contract.accept({"env": "staging"}), **settled},
        {"state": Part.State.DECLINED, "response": contract.decline(), **settled},
        {"state": Part.State.CANCELLED, "response": contract.cancel(), **settled},
        {"state": Part.State.DEGRADED, "degraded_reason": "property is nested"},
        {"state": Part.State.PENDING},
    ]
    for call_index, fields in enumerate(states, start=1):
        Part.objects.create(
            conversation=conversation,
            turn=turn,
            call_index=call_index,
            tool_call_id=f"call_{index}_{call_index}",
            render_kind="elicitation",
            payload=payload,
            normalized=normalized,
            allowed_actions=["accept", "decline", "cancel"],
            **fields,
        )


def test_the_page_uses_a_constant_number_of_queries(
    client, alice, seeded, django_assert_num_queries
):
    conversation = make_conversation(alice, "schema-tester")
    add_turn(conversation, 0, alice)
    client.force_login(alice)
    with CaptureQueriesContext(connection) as one_turn:
        response = client.get(conversation.get_absolute_url())
    assert response.content.decode().count('class="part ') == 5
    assert response.content.decode().count('class="step ') == 1

    for index in range(1, 20):
        add_turn(conversation, index, alice)
    with django_assert_num_queries(len(one_turn)):
        response = client.get(conversation.get_absolute_url())
    html = response.content.decode()
    assert html.count('class="part ') == 100
    assert html.count('class="step ') == 20
    assert html.count('data-state="pending"') == 20
    assert ">(20) Schema tester · Elicitation playground</title>" in html

"""What each recovery pass looks at: a runner that starts resumes turns left waiting with their
question answered (what older versions could leave behind); the periodic sweep only requeues
turns whose runner died, so waiting questions cost it nothing."""

import json

import pytest
from django.utils import timezone

from elicitation import contract
from elicitation.models import Part
from elicitation.uploads import remove_unsent
from playground.runs import recovery
from playground.runs.background_jobs import escalate
from playground.runs.models import Turn
from playground.runs.tasks import requeue_interrupted
from tests.support.runtime_helpers import pending, said, send, start

pytestmark = pytest.mark.django_db(transaction=True)

QUESTION = {
    "message": "Which environment?",
    "requestedSchema": {"type": "object", "properties": {"environment": {"type": "string"}}},
}


def a_stranded_answered_turn(client, alice) -> Turn:
    """A waiting turn whose question was answered without queueing it, as older versions could."""
    client.force_login(alice)
    conversation = start(alice, "schema-tester")
    send(client, conversation, json.dumps(QUESTION))
    part = pending(conversation)
    Part.objects.filter(pk=part.pk).update(
        state=Part.State.SUBMITTED,
        response=contract.accept({"environment": "staging"}),
        settled_at=timezone.now(),
    )
    return part.turn


def test_the_periodic_sweep_leaves_waiting_turns_alone(client, alice):
    turn = a_stranded_answered_turn(client, alice)

    assert (requeue_interrupted(), escalate(), remove_unsent()) == ([], [], [])
    turn.refresh_from_db()
    assert turn.status == Turn.Status.WAITING


def test_a_runner_that_starts_resumes_an_answered_turn_left_waiting(client, alice):
    turn = a_stranded_answered_turn(client, alice)

    assert recovery.start_up() == {"interrupted": [], "answered": [turn.pk]}
    turn.refresh_from_db()
    assert turn.status == Turn.Status.DONE  # resumed with the answer (inline, no server here)
    assert '"environment": "staging"' in said(turn.conversation)[-1]

"""The bench's floors keep the guarantees they are read against (issue 50): each is run once,
untimed. A floor that dropped one would make every ratio against it look worse than it is."""

import importlib

import pytest

from bench import answer_floor
from elicitation.models import Part
from playground.runs.agents import REGISTRY
from playground.runs.builtin_agents.deploy_assistant import ENVIRONMENTS
from playground.runs.models import Agent, Conversation, Turn
from tests.conftest import make_conversation, make_question
from tests.test_api_requests import open_tab


@pytest.fixture
def bench_urls(settings):
    settings.ROOT_URLCONF = "bench.urls"


@pytest.fixture
def waiting(alice, seeded, transactional_db) -> Part:
    """A question of alice's, its turn waiting for her answer."""
    conversation = make_conversation(alice, "schema-tester")
    turn = Turn.objects.create(
        conversation=conversation, index=0, text="ask", status=Turn.Status.WAITING
    )
    payload = {"message": "Question 1-0: which environment?", "requestedSchema": ENVIRONMENTS}
    return make_question(turn, payload)


def test_the_answer_floor_validates_settles_once_pushes_the_chip_and_is_read_back(
    client, alice, waiting, bench_urls
):
    client.force_login(alice)
    next_push = open_tab(waiting.conversation_id)
    url = f"/bench/answer-floor/{waiting.pk}"

    refused = client.post(url, {"answer.environment": "moon", "answer.version": "v1"})
    assert refused.status_code == 400
    waiting.refresh_from_db()
    assert waiting.state == Part.State.PENDING and waiting.turn.status == Turn.Status.WAITING

    saved = client.post(url, {"answer.environment": "staging", "answer.version": "v1"})
    assert saved.status_code == 200 and 'data-state="submitted"' in saved.text
    pushed = next_push()
    assert f'id="part-{waiting.pk}"' in pushed and 'data-state="submitted"' in pushed
    assert "v1" in pushed
    _, answer = answer_floor.read_back[waiting.pk]
    assert answer == {"action": "accept", "content": {"environment": "staging", "version": "v1"}}
    waiting.refresh_from_db()
    assert waiting.state == Part.State.SUBMITTED and waiting.turn.status == Turn.Status.DONE

    again = client.post(url, {"answer.environment": "production", "answer.version": "v2"})
    assert again.status_code == 404  # exactly one winner
    waiting.refresh_from_db()
    assert waiting.response["content"]["environment"] == "staging"


def test_the_answer_floor_is_the_owners_only(client, bob, waiting, bench_urls):
    client.force_login(bob)
    answer = {"answer.environment": "staging", "answer.version": "v1"}
    assert client.post(f"/bench/answer-floor/{waiting.pk}", answer).status_code == 404
    waiting.refresh_from_db()
    assert waiting.state == Part.State.PENDING


@pytest.fixture
def bench_agent(transactional_db):
    """The bench agent, registered for this test only (the bench's settings list it)."""
    before = dict(REGISTRY)
    importlib.reload(importlib.import_module("bench.agents"))
    yield Agent.objects.create(slug="bench-ask", kind="bench-ask", name="Bench: one question")
    REGISTRY.clear()
    REGISTRY.update(before)


def test_the_question_floor_saves_its_row_then_pushes_its_form(client, alice, bench_agent):
    client.force_login(alice)
    conversation = Conversation.objects.create(owner=alice, agent=bench_agent)
    next_push = open_tab(conversation.pk)

    client.post(f"/c/{conversation.pk}/send", {"text": "floor f0"}, HTTP_HX_REQUEST="true")

    [part] = Part.objects.filter(conversation=conversation)
    assert part.state == Part.State.PENDING and part.created_at and part.pushed_at
    pushes = [next_push() for _ in range(3)]
    [floor] = [html for html in pushes if f'data-bench-floor="{part.pk}"' in html]
    assert 'data-state="pending"' in floor and "Question f0: which environment?" in floor

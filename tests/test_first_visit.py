"""A first visit shows what the playground does: one click to a real question, samples to try."""

import re

import pytest

from elicitation.models import Part
from playground.runs.agents import REGISTRY
from playground.runs.models import Conversation
from tests.conftest import make_conversation
from tests.support.runtime_helpers import answer, pending, said

# Agent runs happen on commit.
pytestmark = pytest.mark.django_db(transaction=True)
BUILT_IN = ["schema-tester", "deploy-assistant", "support-triage"]


@pytest.fixture
def client(client, alice):
    client.force_login(alice)
    return client


def test_the_first_visit_shows_the_playground_with_one_click_tries(client, seeded):
    response = client.get("/")
    assert response.status_code == 200  # the home page, not the wizard
    page = response.content.decode()
    assert "Agents that stop and ask you" in page
    assert "Deploy assistant: Deploy to staging" in page
    assert 'action="/agents/deploy-assistant/new"' in page
    assert "Make your own agent (the setup wizard)" in page


def test_someone_who_has_chatted_gets_the_plain_home_page(client, alice, seeded):
    make_conversation(alice, "deploy-assistant")
    page = client.get("/").content.decode()
    assert "Agents that stop and ask you" not in page
    assert "Chat with Deploy assistant" in page


def test_a_try_from_the_home_page_opens_on_its_question(client, alice, seeded):
    response = client.post("/agents/deploy-assistant/new", {"text": "Deploy to staging"})
    conversation = Conversation.objects.get(owner=alice)
    assert response["Location"] == f"/c/{conversation.pk}/"
    assert conversation.turns.get().text == "Deploy to staging"
    question = pending(conversation)
    assert question.message == "Which environment should I deploy to?"
    assert question.value == {"environment": "staging"}  # what the sample said, filled in
    page = client.get(response["Location"]).content.decode()
    assert 'value="staging" checked' in re.sub(r"\s+", " ", page)


def test_every_built_in_agent_offers_two_or_three_samples_as_buttons(client, alice, seeded):
    for slug in BUILT_IN:
        samples = REGISTRY[slug].samples
        assert 2 <= len(samples) <= 3, slug
        conversation = make_conversation(alice, slug)
        page = client.get(f"/c/{conversation.pk}/").content.decode()
        for label, _ in samples:
            assert f'class="starter">{label}</button>' in page, (slug, label)
        assert page.count(f'hx-post="/c/{conversation.pk}/send"') >= len(samples)


def test_the_schema_testers_samples_are_payloads_it_asks(client, alice, seeded):
    for _, text in REGISTRY["schema-tester"].samples:
        conversation = make_conversation(alice, "schema-tester")
        client.post(f"/c/{conversation.pk}/send", {"text": text})
        assert pending(conversation).state == Part.State.PENDING, text


def test_the_deploy_assistant_says_the_options_title_everywhere(client, alice, seeded):
    client.post("/agents/deploy-assistant/new", {"text": "Deploy v1.4.2 to production"})
    conversation = Conversation.objects.get(owner=alice)
    question = pending(conversation)
    assert question.value == {"environment": "production", "version": "v1.4.2"}
    answer(client, question, environment="production", version="v1.4.2")
    approval = pending(conversation)
    assert approval.message.startswith("Deploy version v1.4.2 of the web app to Production?")
    assert approval.payload["details"]["Environment"] == "Production"
    answer(client, approval, "decline")
    assert said(conversation) == ["Deployment to Production cancelled; nothing changed."]

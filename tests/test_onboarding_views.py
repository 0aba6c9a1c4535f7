"""The wizard's pages: first run, starting and deleting drafts, an agent's page and its export."""

import json
import re
from datetime import timedelta

import pytest

from playground.onboarding import drafts
from playground.runs.models import Agent, Conversation, Schedule
from playground.schedules import scheduler


@pytest.fixture
def client(client, alice):
    client.force_login(alice)
    return client


def made_agent(owner, slug: str = "ticket-digest") -> Agent:
    config = {"name": "Ticket digest", "platform": "zendesk", "tools": ["request_input"]}
    return Agent.objects.create(
        slug=slug, name="Ticket digest", kind="configured", owner=owner, config=config
    )


def test_the_wizard_is_one_click_from_the_first_page(client, alice, seeded):
    page = client.get("/").content.decode()
    assert 'action="/agents/new"' in page and "Make your own agent" in page
    response = client.post("/agents/new", follow=True)
    conversation = Conversation.objects.get(owner=alice)
    assert conversation.agent.is_draft and conversation.agent.kind == "setup"
    assert "Create an agent" in response.content.decode()
    assert "Watch our Zendesk for urgent tickets every 15 minutes" in response.content.decode()


def test_someone_with_an_agent_or_a_conversation_sees_the_home_page(client, alice, bob, seeded):
    made_agent(alice)
    assert client.get("/").status_code == 200
    client.force_login(bob)
    Conversation.objects.create(owner=bob, agent=Agent.objects.get(slug="deploy-assistant"))
    assert client.get("/").status_code == 200


def test_new_agents_come_first_on_the_home_page_and_built_ins_after(client, alice, bob, seeded):
    made_agent(alice, "older")
    made_agent(bob, "not-alices")
    Agent.objects.create(slug="newer", name="Refund watcher", kind="configured", owner=alice)
    page = client.get("/").content.decode()
    buttons = re.findall(r">Chat with ([^<]+)</button>", page)
    built_in = Agent.objects.filter(builtin=True).order_by("name").values_list("name", flat=True)
    assert buttons == ["Refund watcher", "Ticket digest", *built_in]


def test_new_agent_reuses_a_draft_nobody_wrote_in(client, alice):
    first = client.post("/agents/new").url
    assert client.post("/agents/new").url == first
    assert Agent.objects.filter(owner=alice, is_draft=True).count() == 1


def test_home_lists_described_drafts_with_a_delete_button(client, alice, seeded):
    untouched = drafts.start_draft(alice)
    described = drafts.start_draft(alice)
    assert described == untouched  # reused until something is written in it
    described.title = "Summarise new GitHub pull requests each evening"
    described.save()
    described.turns.create(index=0, text=described.title)
    drafts.start_draft(alice)  # a new, untouched one: not listed
    page = client.get("/").content.decode()
    assert page.count(f'href="/c/{described.pk}/"') == 1
    assert page.count('action="/agents/draft-') == 1
    assert "Summarise new GitHub pull requests each evening" in page
    assert "New agent" in page


def test_a_draft_is_deleted_with_its_conversation(client, alice):
    conversation = drafts.start_draft(alice)
    response = client.post(f"/agents/{conversation.agent.slug}/delete")
    assert response.status_code == 302 and response.url == "/"
    assert not Agent.objects.filter(pk=conversation.agent_id).exists()
    assert not Conversation.objects.filter(pk=conversation.pk).exists()


def test_only_the_owner_deletes_an_agent(client, alice, bob, seeded):
    others = [drafts.start_draft(bob).agent, made_agent(bob, "bobs-digest")]
    for agent in [*others, Agent.objects.get(slug="deploy-assistant")]:
        assert client.get(f"/agents/{agent.slug}/delete").status_code == 404
        data = {"confirmed": "yes"}
        assert client.post(f"/agents/{agent.slug}/delete", data).status_code == 404
        assert Agent.objects.filter(pk=agent.pk).exists()


def test_a_made_agent_is_deleted_once_confirmed_with_its_schedule_and_conversations(client, alice):
    daily = {"trigger": {"kind": "daily", "time": "09:00"}, "timezone": "UTC"}
    agent = made_agent(alice)
    agent.config |= daily
    agent.save()  # its owner's schedule follows its trigger
    schedule = Schedule.objects.get(agent=agent, owner=alice)
    chats = [Conversation.objects.create(owner=alice, agent=agent) for _ in range(2)]
    assert 'href="/agents/ticket-digest/delete"' in client.get("/").content.decode()

    # A POST that did not come through the confirmation deletes nothing: it asks.
    for asked in (client.get("/agents/ticket-digest/delete"), client.post(agent_delete(agent))):
        page = asked.content.decode()
        assert asked.status_code == 200 and "Delete Ticket digest?" in page
        assert "stops its schedule, which runs every day at 09:00 (UTC)," in page
        assert "removes its 2 conversations" in page
        assert 'name="confirmed"' in page and ">Delete Ticket digest</button>" in page
    assert Agent.objects.filter(pk=agent.pk).exists()

    response = client.post(agent_delete(agent), {"confirmed": "yes"})
    assert response.status_code == 302 and response.url == "/"
    assert not Agent.objects.filter(pk=agent.pk).exists()
    assert not Schedule.objects.filter(pk=schedule.pk).exists()  # stopped: no slot fires
    assert scheduler.fire_due(now=schedule.next_run_at + timedelta(days=1))[0] == []
    assert not Conversation.objects.filter(pk__in=[chat.pk for chat in chats]).exists()
    assert client.get("/agents/ticket-digest/").status_code == 404


def agent_delete(agent: Agent) -> str:
    return f"/agents/{agent.slug}/delete"


def test_the_configuration_downloads_as_json(client, alice):
    agent = made_agent(alice)
    response = client.get(f"/agents/{agent.slug}/config.json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == 'attachment; filename="ticket-digest.json"'
    assert json.loads(response.content) == {"slug": "ticket-digest", **agent.config}


def test_only_the_owner_exports_a_configuration(client, alice, bob, seeded):
    assert client.get(f"/agents/{made_agent(bob).slug}/config.json").status_code == 404
    assert client.get("/agents/deploy-assistant/config.json").status_code == 404
    draft = drafts.start_draft(alice).agent
    assert client.get(f"/agents/{draft.slug}/config.json").status_code == 404


def test_an_agents_page_is_its_latest_conversation(client, alice, bob):
    agent = made_agent(alice)
    Conversation.objects.create(owner=alice, agent=agent, title="older")
    latest = Conversation.objects.create(owner=alice, agent=agent, title="latest")
    response = client.get(f"/agents/{agent.slug}/")
    assert response.status_code == 200
    assert f'ws-connect="/ws/c/{latest.pk}/"' in response.content.decode()
    client.force_login(bob)
    assert client.get(f"/agents/{agent.slug}/").status_code == 404


def test_an_agents_page_without_a_conversation_goes_home(client, alice):
    response = client.get(f"/agents/{made_agent(alice).slug}/")
    assert response.status_code == 302 and response.url == "/"

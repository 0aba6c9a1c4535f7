"""The agent page's schedule: it shows the next runs and the last run's outcome, and Pause,
Resume and Run now act on the person's own schedule; someone else's is 404."""

import re

import pytest

from playground.runs.agents import agent
from playground.runs.models import Agent, Conversation, Schedule, Turn

pytestmark = pytest.mark.django_db(transaction=True)

CONFIG = {
    "name": "Triage digest",
    "platform": "github",
    "trigger": {"kind": "weekdays", "time": "09:00"},
    "timezone": "Europe/Berlin",
    "destination": {"kind": "chat"},
}


@agent("scheduled-digest", name="Digest", schedule={"kind": "daily", "time": "08:00"})
async def digest(ctx, message: str) -> None:
    await ctx.say(f"Digest for: {message}")


@pytest.fixture
def made(alice) -> Agent:
    made = Agent.objects.create(
        slug="triage-digest", name="Triage digest", kind="configured", owner=alice, config=CONFIG
    )
    Conversation.objects.create(owner=alice, agent=made, title="Set up")
    return made


def htmx_post(client, url: str):
    return client.post(url, HTTP_HX_REQUEST="true")


def test_the_agent_page_shows_the_next_runs_in_the_agents_zone(client, alice, made):
    client.force_login(alice)
    page = client.get("/agents/triage-digest/").content.decode()
    assert "Runs every weekday at 09:00 (Berlin time)." in page
    upcoming = re.findall(r"<li>(\w{3} \d+ \w{3} 09:00 CE[S]?T)</li>", page)
    assert len(upcoming) == 3
    assert "No run yet." in page and ">Pause<" in page and ">Run now<" in page


def test_pause_and_resume_answer_with_the_panel(client, alice, made):
    client.force_login(alice)
    paused = htmx_post(client, "/agents/triage-digest/schedule/pause").content.decode()
    assert "<strong>Paused.</strong>" in paused and ">Resume<" in paused
    assert "No runs while paused." in paused
    assert Schedule.objects.get(agent=made).paused
    resumed = htmx_post(client, "/agents/triage-digest/schedule/resume").content.decode()
    assert ">Pause<" in resumed and "Next runs" in resumed
    assert not Schedule.objects.get(agent=made).paused


def test_run_now_opens_the_runs_conversation_with_the_run_in_it(client, alice, made):
    client.force_login(alice)
    response = htmx_post(client, "/agents/triage-digest/schedule/run")
    runs_url = response.headers["HX-Redirect"]
    page = client.get(runs_url).content.decode()
    heading = r'<h2 [^>]*class="run-heading"[^>]*>Run now, \w{3} \d+ \w{3} \d\d:\d\d CE'
    assert re.search(heading, page)
    assert "I'm **Triage digest**" not in page and "Triage digest</strong>" in page
    # The wizard's agent, answered by its rules, says what it lacks and pretends nothing.
    assert Turn.objects.get(conversation__title="Runs").status == Turn.Status.DONE
    assert "but I cannot do it yet" in page and "Nothing was read or sent." in page
    agent_page = client.get("/agents/triage-digest/").content.decode()
    last = r"Last run: <a [^>]*>Run now, [^<]+</a>: <span [^>]*>done"
    assert re.search(last, agent_page)


def test_someone_elses_schedule_is_404(client, bob, made):
    client.force_login(bob)
    for action in ("pause", "resume", "run", "start"):
        assert htmx_post(client, f"/agents/triage-digest/schedule/{action}").status_code == 404
    assert Schedule.objects.get(agent=made).paused is False


def test_a_built_in_agents_schedule_is_turned_on_by_each_person_in_their_zone(client, alice, bob):
    row = Agent.objects.create(slug="digest", name="Digest", kind="scheduled-digest", builtin=True)
    conversation = Conversation.objects.create(owner=alice, agent=row)
    client.force_login(alice)
    page = client.get(f"/c/{conversation.pk}/").content.decode()
    assert ">Turn on its schedule<" in page
    panel = htmx_post(client, "/agents/digest/schedule/start").content.decode()
    assert ">Pause<" in panel and re.search(r"<li>\w{3} \d+ \w{3} 08:00 \w+</li>", panel)
    assert Schedule.objects.get(agent=row).owner == alice
    client.force_login(bob)
    assert htmx_post(client, "/agents/digest/schedule/pause").status_code == 404  # not his yet

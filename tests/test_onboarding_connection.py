"""The wizard asks for the platform's connection with a connection card when the agent is made.

The servers file gives GitHub agents a server taking each person's `demo` credential
(`connection = "demo"`; the SDK-built env server, which says only a digest of it). After the
config card is accepted, a person without a Demo connection is asked for one with the card, the
credential goes to the vault, and the agent is made either way; a person who has one is not
asked. Both the model's setup and the rules' (the model failing) come the same way."""

import sys
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync

from elicitation.models import Part
from playground.connections.models import Connection
from playground.onboarding import answerers, setup_agent
from playground.runs.models import Agent, Conversation, Message, Step, Turn
from playground.runs.tasks import execute_turn
from tests.support.connections_support import digest, everything_stored, new_key, services_file
from tests.support.llm_support import (
    call,
    logged_in,  # noqa: F401  (a fixture)
    scripted,
    tool_results,
    use_scripted_model,
)
from tests.support.onboarding_support import open_wizard
from tests.support.runtime_helpers import answer, pending, said, send

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("logged_in")]

ENV_SERVER = Path(__file__).parent / "support" / "mcp_env_server.py"
TOKEN = "tok-wizard-demo-5f19c3"
DESCRIPTION = "Every weekday at 9am summarise new GitHub issues and post it here (Berlin time)"
PROPOSAL = {
    "name": "Issue digest",
    "purpose": "Summarises new GitHub issues.",
    "instructions": "Read the GitHub issues opened since the last run and summarise them.",
    "platform": "github",
    "trigger_kind": "weekdays",
    "trigger_time": "09:00",
    "timezone": "Europe/Berlin",
    "destination_kind": "chat",
}
REASON = (
    "{agent} works with GitHub through Env server, which uses your own Demo connection. "
    "Connect it now and {agent} can work from its first run."
)


@pytest.fixture(autouse=True)
def playground(settings, monkeypatch, tmp_path):
    """A scripted model, the vault with the `demo` service, and a GitHub server taking it."""
    use_scripted_model(settings, monkeypatch)
    settings.CONNECTIONS_KEYS = [new_key()]
    settings.CONNECTION_SERVICES_FILE = str(services_file(tmp_path))
    path = tmp_path / "mcp_servers.toml"
    path.write_text(
        '[servers.env]\ntitle = "Env server"\ntransport = "stdio"\n'
        f"command = {sys.executable!r}\nargs = [{str(ENV_SERVER)!r}]\n"
        'connection = "demo"\nplatforms = ["github"]\n'
    )
    settings.MCP_SERVERS_FILE = str(path)


def accept_the_card(client, *, by_the_model: bool = True) -> tuple[Conversation, str]:
    """Describe the agent, accept its card and have the model answer it; return the wizard's
    conversation and the name on the card."""
    if by_the_model:
        scripted([("propose_configuration", PROPOSAL)])
    else:  # the model never proposes anything usable: the rules take over
        scripted(*[[("propose_configuration", {**PROPOSAL, "platform": "jira"})]] * 4)
    wizard = open_wizard(client)
    send(client, wizard, DESCRIPTION)
    card = pending(wizard)
    assert card.render_kind == "config-card"
    assert answer(client, card).status_code == 200
    assert answer(client, pending(wizard), answered_by="scripted/m").status_code == 200
    return wizard, card.value["name"]


def connect(client, part: Part):
    data = {"field.token": TOKEN, "label": "Mine", "connect": "1"}
    return client.post(f"/parts/{part.pk}/connect", data, HTTP_HX_REQUEST="true")


def transcript(client, wizard: Conversation) -> list[str]:
    """Everything the chat keeps and shows: messages, steps, parts, the page, every table."""
    return [
        *Message.objects.values_list("text", flat=True),
        *(str(result) for result in Step.objects.values_list("result", flat=True)),
        *(str(part.payload) + str(part.response) for part in Part.objects.all()),
        client.get(f"/c/{wizard.pk}/").content.decode(),
        everything_stored(),
    ]


@pytest.mark.parametrize("by_the_model", [True, False], ids=["model", "rules"])
def test_the_card_asks_for_the_connection_and_connecting_makes_a_working_agent(
    client, alice, by_the_model
):
    wizard, name = accept_the_card(client, by_the_model=by_the_model)
    if not by_the_model:
        assert said(wizard)[0].endswith("So let me ask step by step instead.")
    card = pending(wizard)
    assert card.render_kind == "connection"
    assert card.message == REASON.format(agent=name)
    assert Agent.objects.get(pk=wizard.agent_id).is_draft  # made once the card is answered
    html = client.get(f"/c/{wizard.pk}/").content.decode()
    # The card names the agent being made, whose connection it will be, not the setup agent.
    assert f'<span class="asker">{name} asks to use your Demo connection</span>' in html
    assert f"{name} gets a reference to it." in html
    assert f'hx-post="/parts/{card.pk}/connect"' in html
    assert 'name="field.token" type="password"' in html

    assert connect(client, card).status_code == 200
    agent = Agent.objects.get(pk=wizard.agent_id)
    assert agent.kind == "llm" and not agent.is_draft and agent.name == name
    [kept] = Connection.objects.filter(owner=alice, service="demo")
    assert kept.label == "Mine" and kept.values()["token"] == TOKEN
    assert said(wizard)[-1].startswith(f"**{name}** is ready.")
    assert Turn.objects.get(conversation=wizard).status == Turn.Status.DONE

    # It works at once: its first run calls the server with the person's credential.
    scripted([call("token")], lambda messages: f"Got {tool_results(messages)[-1]}")
    send(client, wizard, "Anything new?")
    assert said(wizard)[-1] == f"Got MCP_TEST_TOKEN: sha256 {digest(TOKEN)}"
    assert Part.objects.filter(conversation=wizard, render_kind="connection").count() == 1
    assert not [text for text in transcript(client, wizard) if TOKEN in text]


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_declining_still_makes_the_agent_which_asks_when_it_needs_the_connection(client, action):
    wizard, _ = accept_the_card(client)
    assert answer(client, pending(wizard), action).status_code == 200
    agent = Agent.objects.get(pk=wizard.agent_id)
    assert agent.kind == "llm" and not agent.is_draft
    assert said(wizard)[-2].startswith("**Issue digest** is ready.")
    assert said(wizard)[-1] == (
        "Not connected: Issue digest will ask for your Demo connection when it first needs it."
    )
    assert not Connection.objects.exists()

    # As it said: its first call of the server asks for the connection.
    scripted([call("token")], lambda messages: f"Got {tool_results(messages)[-1]}")
    send(client, wizard, "Anything new?")
    again = pending(wizard)
    assert again.render_kind == "connection" and again.turn.index == 1


def test_a_person_who_has_the_connection_is_not_asked(client, alice):
    Connection.store(alice, "demo", "Work", {"token": TOKEN, "region": "eu"})
    wizard, _ = accept_the_card(client)
    agent = Agent.objects.get(pk=wizard.agent_id)
    assert agent.kind == "llm" and not agent.is_draft
    assert not Part.objects.filter(conversation=wizard, render_kind="connection").exists()
    assert said(wizard)[-1].startswith("**Issue digest** is ready.")


def test_an_agent_its_own_rules_answer_is_not_asked(client):
    scripted([("propose_configuration", PROPOSAL)])
    wizard = open_wizard(client)
    send(client, wizard, DESCRIPTION)
    answer(client, pending(wizard))
    answer(client, pending(wizard), answered_by=answerers.OWN_RULES)
    # Rules call no server, so the connection would not be used.
    assert Agent.objects.get(pk=wizard.agent_id).kind == "configured"
    assert not Part.objects.filter(conversation=wizard, render_kind="connection").exists()


def test_the_connection_is_asked_once_and_a_replay_changes_nothing(client):
    wizard, _ = accept_the_card(client)
    connect(client, pending(wizard))
    before = said(wizard)
    turn = Turn.objects.get(conversation=wizard)
    Turn.objects.filter(pk=turn.pk).update(status=Turn.Status.QUEUED)
    async_to_sync(execute_turn)(turn.pk)
    assert said(wizard) == before
    assert Part.objects.filter(conversation=wizard, render_kind="connection").count() == 1
    assert Connection.objects.count() == 1 and Agent.objects.filter(is_draft=False).count() == 1


def test_no_question_of_the_wizard_asks_for_a_secret(client):
    wizard, _ = accept_the_card(client)
    connect(client, pending(wizard))
    for part in Part.objects.filter(conversation=wizard).exclude(render_kind="connection"):
        fields = (part.payload.get("requestedSchema") or {}).get("properties") or {}
        assert not [name for name in fields if "token" in name or "key" in name]
    assert setup_agent.SECRET_POINTER not in said(wizard)

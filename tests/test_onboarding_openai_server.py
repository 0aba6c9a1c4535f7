"""The setup agent answered by a local server speaking the OpenAI-compatible protocol over HTTP
(tests/support/fake_openai.py): it asks through a form, proposes the card, gets the checker's words
for a bad proposal and corrects it, and the agent is created."""

import json

import pytest

from playground.runs.models import Agent
from tests.support.fake_openai import MODEL, FakeOpenAI, tool_calls
from tests.support.onboarding_support import DESCRIPTION, PROPOSAL, ZONE_QUESTION, open_wizard
from tests.support.runtime_helpers import answer, pending, said, send

pytestmark = pytest.mark.django_db(transaction=True)

BAD = PROPOSAL | {"trigger_kind": "every_n_minutes", "trigger_minutes": 2}
CORRECTED = PROPOSAL | {"trigger_time": "08:30"}


@pytest.fixture
def server(settings):
    server = FakeOpenAI(
        tool_calls(("request_input", ZONE_QUESTION)),
        tool_calls(("propose_configuration", BAD)),
        tool_calls(("propose_configuration", CORRECTED)),
    )
    settings.LLM_PROVIDERS = [{"name": "local", "base_url": server.base_url, "models": [MODEL]}]
    settings.LLM_BASE_URL, settings.ANTHROPIC_API_KEY = "", ""
    settings.LLM_MAX_RETRIES, settings.LLM_TIMEOUT_SECONDS = 1, 5
    yield server
    server.close()


def tool_messages(request: dict) -> list[str]:
    """Return the tool results the playground sent the model in one request."""
    return [message["content"] for message in request["messages"] if message["role"] == "tool"]


def test_the_setup_agent_asks_proposes_is_corrected_and_creates_the_agent(client, alice, server):
    client.force_login(alice)
    wizard = open_wizard(client)
    send(client, wizard, DESCRIPTION)

    question = pending(wizard)
    assert question.message == ZONE_QUESTION["message"]
    first = server.requests[0]
    assert DESCRIPTION in json.dumps(first["messages"])
    offered = {tool["function"]["name"] for tool in first["tools"]}
    assert {"request_input", "propose_configuration"} <= offered
    answer(client, question, time="08:30", timezone="Europe/Berlin")

    card = pending(wizard)
    assert card.render_kind == "config-card"
    assert (card.value["trigger_kind"], card.value["trigger_weeks"]) == ("every_n_weeks", 2)
    assert card.value["trigger_time"] == "08:30"
    # The answer went back as the tool result; the bad proposal got the checker's words.
    assert "Europe/Berlin" in tool_messages(server.requests[1])[-1]
    refused = tool_messages(server.requests[2])[-1]
    assert "trigger_minutes: Give a number of minutes between 5 and 1440." in refused
    assert len(server.requests) == 3

    answer(client, card)
    who = pending(wizard)
    default = who.payload["requestedSchema"]["properties"]["answered_by"]["default"]
    assert default == f"local/{MODEL}"
    answer(client, who, answered_by=default)

    agent = Agent.objects.get(pk=wizard.agent_id)
    assert (agent.name, agent.kind, agent.is_draft) == ("Issue digest", "llm", False)
    assert agent.config["trigger"] == {
        "kind": "every_n_weeks",
        "weeks": 2,
        "days": ["monday"],
        "time": "08:30",
    }
    # No server for GitHub is declared here: it says so rather than "is ready".
    made = said(wizard)[-1]
    assert made.startswith("**Issue digest** is made, but it cannot work yet.")
    assert "No MCP server for GitHub" in made

"""LLM agents over the real OpenAI-compatible HTTP protocol, against a local fake server:
configuration, a question answered through it, and every way a provider can fail."""

import json
import logging

import pytest

from playground.runs.models import Agent, Conversation, Turn
from tests.support.fake_openai import MODEL, FakeOpenAI, failure, garbage, text, tool_calls
from tests.support.live_server import free_port
from tests.support.llm_support import logged_in  # noqa: F401
from tests.support.mcp_support import stdio_servers_file
from tests.support.runtime_helpers import answer, pending, said, send

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("logged_in")]

COLOUR = {"type": "object", "properties": {"colour": {"type": "string", "enum": ["red", "green"]}}}


@pytest.fixture
def fake(settings):
    servers = []

    def serve(*replies):
        server = FakeOpenAI(*replies)
        servers.append(server)
        settings.LLM_BASE_URL = server.base_url
        settings.LLM_MODELS = [MODEL]
        settings.LLM_API_KEY = "sk-test-not-stored"
        settings.LLM_MAX_RETRIES = 1
        settings.LLM_TIMEOUT_SECONDS = 5
        return server

    yield serve
    for server in servers:
        server.close()


def new_agent(client) -> Conversation:
    response = client.post(
        "/llm-agents/new",
        {"name": "Painter", "model": f"default/{MODEL}", "instructions": "Be brief."},
    )
    assert response.status_code == 302, response.content
    return Conversation.objects.get(agent__name="Painter")


def test_with_no_model_configured_the_page_says_what_to_set(client, settings):
    settings.LLM_BASE_URL, settings.ANTHROPIC_API_KEY, settings.LLM_PROVIDERS = "", "", []
    page = client.get("/llm-agents/new").content.decode()
    assert "LLM_BASE_URL" in page and "LLM_MODELS" in page and "ANTHROPIC_API_KEY" in page
    assert "http://localhost:11434/v1" in page


def test_an_agent_stores_the_provider_and_model_by_name_never_a_key(client, fake):
    fake(text("Hi."))
    conversation = new_agent(client)
    assert conversation.agent.config == {
        "provider": "default",
        "model": MODEL,
        "instructions": "Be brief.",
    }
    assert "sk-test" not in json.dumps(list(Agent.objects.values()), default=str)


def test_a_model_that_is_not_offered_is_refused_with_the_choices_kept(client, fake):
    fake(text("Hi."))
    response = client.post("/llm-agents/new", {"name": "X", "model": "evil/http://10.0.0.1"})
    assert response.status_code == 422
    assert "Select a valid choice" in response.content.decode()
    assert 'value="X"' in response.content.decode()


def test_the_model_asks_over_http_and_continues_with_the_answer(client, fake):
    server = fake(
        tool_calls(("request_input", {"message": "Which colour?", "requestedSchema": COLOUR})),
        text("Painting it green."),
    )
    conversation = new_agent(client)
    send(client, conversation, "paint the fence")
    answer(client, pending(conversation), colour="green")
    assert said(conversation) == ["Painting it green."]
    first, second = server.requests
    assert first["messages"][0] == {"role": "system", "content": "Be brief."}
    assert first["stream"] is True
    assert json.loads(second["messages"][-1]["content"]) == {
        "action": "accept",
        "content": {"colour": "green"},
    }
    turn = Turn.objects.get()
    assert (turn.input_tokens, turn.output_tokens) == (24, 10)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (failure(401), "refused the API key (HTTP 401)"),
        (failure(429), "is limiting requests (HTTP 429)"),
        (failure(500), "failed (HTTP 500)"),
        (garbage(b"data: {not json\n\n"), "sent a reply the playground could not use"),
    ],
    ids=["401", "429", "500", "garbage"],
)
def test_a_failing_provider_fails_the_turn_with_a_message_naming_it(
    client, fake, reply, expected, log_records
):
    server = fake(reply)
    conversation = new_agent(client)
    send(client, conversation, "hi")
    turn = Turn.objects.get()
    assert turn.status == Turn.Status.FAILED
    [shown] = said(conversation)
    # Named as the docs name it; its address is for staff (the admin's turn page) only.
    assert shown.startswith(f"The OpenAI-compatible server (LLM_BASE_URL) {expected}")
    assert server.base_url not in shown and "default" not in shown
    assert "Traceback" in turn.error_trace
    assert f"Address: {server.base_url}" in turn.error_trace
    retried = reply.status in (429, 500)
    assert len(server.requests) == (2 if retried else 1)
    # One log record for the fault, without the chain of tracebacks behind it.
    [record] = [record for record in log_records if record.levelno >= logging.WARNING]
    assert record.getMessage() == f"agent run failed (turn {turn.pk}): {shown}"
    assert record.exc_info is None


@pytest.fixture
def log_records():
    """Every record the playground's loggers (and the root logger) write during the test."""
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append
    loggers = [logging.getLogger(), logging.getLogger("playground")]
    for logger in loggers:
        logger.addHandler(handler)
    yield records
    for logger in loggers:
        logger.removeHandler(handler)


def test_a_declared_provider_is_named_by_its_name(client, fake, settings):
    server = fake(failure(401))
    settings.LLM_BASE_URL = ""
    settings.LLM_PROVIDERS = [{"name": "local", "base_url": server.base_url, "models": [MODEL]}]
    data = {"name": "Painter", "model": f"local/{MODEL}"}
    assert client.post("/llm-agents/new", data).status_code == 302
    send(client, Conversation.objects.get(agent__name="Painter"), "hi")
    [shown] = said(Conversation.objects.get(agent__name="Painter"))
    assert shown.startswith('The model provider "local" refused the API key (HTTP 401)')
    assert server.base_url not in shown


def test_a_server_error_is_retried_and_the_turn_goes_on(client, fake):
    server = fake(failure(503), text("Back again."))
    conversation = new_agent(client)
    send(client, conversation, "hi")
    assert said(conversation) == ["Back again."]
    assert len(server.requests) == 2


def test_an_unreachable_provider_says_to_check_the_server(client, fake, settings):
    fake(text("unused"))
    settings.LLM_BASE_URL = f"http://127.0.0.1:{free_port()}/v1"
    conversation = new_agent(client)
    send(client, conversation, "hi")
    assert "could not be reached" in said(conversation)[0]
    # The person can send again once the server is back.
    server = fake(text("Hello."))
    settings.LLM_BASE_URL = server.base_url
    send(client, conversation, "hi again")
    assert said(conversation)[-1] == "Hello."


def test_invalid_json_tool_arguments_are_sent_back_to_the_model(client, fake):
    server = fake(tool_calls(("request_input", "{broken")), text("Sorry, let me ask again."))
    conversation = new_agent(client)
    send(client, conversation, "hi")
    assert said(conversation) == ["Sorry, let me ask again."]
    assert server.requests[1]["messages"][-1]["role"] == "tool"


PROPOSAL = {
    "name": "Issue digest",
    "purpose": "Summarises new GitHub issues.",
    "platform": "github",
    "trigger_kind": "weekdays",
    "trigger_time": "09:00",
    "timezone": "Europe/Berlin",
    "destination_kind": "chat",
}


def test_the_onboarding_wizard_is_answered_by_the_model_and_makes_an_agent_it_answers(
    client, fake, settings, tmp_path
):
    server = fake(tool_calls(("propose_configuration", PROPOSAL)), text("Hi."))
    settings.MCP_SERVERS_FILE = str(stdio_servers_file(tmp_path, extra='platforms = ["github"]\n'))
    wizard = Conversation.objects.get(pk=client.post("/agents/new").url.split("/")[2])
    send(client, wizard, "Every weekday at 9am summarise new GitHub issues here (Berlin time)")
    tools = {tool["function"]["name"] for tool in server.requests[0]["tools"]}
    assert {"request_input", "propose_configuration"} <= tools
    card = pending(wizard)
    assert card.value["name"] == "Issue digest"
    answer(client, card)
    question = pending(wizard)
    assert question.message == "Who should answer this agent's messages?"
    answer(client, question, answered_by=f"default/{MODEL}")
    agent = Agent.objects.get(pk=wizard.agent_id)
    assert agent.kind == "llm" and not agent.is_draft
    assert (agent.config["provider"], agent.config["model"]) == ("default", MODEL)
    assert agent.config["instructions"].startswith(f"You are {agent.name}")
    send(client, wizard, "hello")
    assert said(wizard)[-1] == "Hi."
    assert "echo" in {tool["function"]["name"] for tool in server.requests[-1]["tools"]}


def test_a_setup_model_that_refuses_the_key_hands_over_to_the_rules(client, fake):
    server = fake(failure(401))
    wizard = Conversation.objects.get(pk=client.post("/agents/new").url.split("/")[2])
    send(
        client,
        wizard,
        "Every weekday at 9am summarise new GitHub issues in #eng-triage (Berlin time)",
    )
    [notice] = said(wizard)
    assert "refused the API key (HTTP 401)" in notice
    assert notice.endswith("So let me ask step by step instead.")
    card = pending(wizard)
    assert card.value["destination_target"] == "#eng-triage"  # the rules' card
    answer(client, card)  # the turn replays: the recorded failure, not a new request
    assert pending(wizard).message == "Who should answer this agent's messages?"
    assert len(server.requests) == 1

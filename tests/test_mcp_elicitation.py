"""A real server's form elicitation answered in the chat, on 2026-07-28 connections: the
question waits holding no connection, and the next round resumes on a fresh one."""

import json

import pytest

from elicitation.models import Part
from playground.runs.models import Turn
from tests.support.mcp_support import (
    HttpTestServer,
    chat_with,
    http_servers_file,
    stdio_servers_file,
)
from tests.support.runtime_helpers import answer, pending, said, send

pytestmark = pytest.mark.django_db(transaction=True)

PROFILE = {
    "name": "Ada",
    "age": "36",
    "height": "1.7",
    "subscribe": "true",
    "plan": "pro",
    "topics": ["news", "music"],
    "email": "ada@example.com",
    "birthday": "1815-12-10",
    "homepage": "https://ada.example.com/",
}


@pytest.fixture
def completions(tmp_path, monkeypatch):
    log = tmp_path / "completions.log"
    monkeypatch.setenv("MCP_TEST_LOG", str(log))
    return lambda: log.read_text().count("profile") if log.exists() else 0


@pytest.fixture
def conversation(settings, tmp_path, client, alice, completions):
    """A chat with the test server over stdio: a new process for every round."""
    return chat_with(settings, client, alice, stdio_servers_file(tmp_path))


@pytest.fixture
def http_conversation(request, settings, tmp_path, client, alice, completions):
    """A chat with the test server over Streamable HTTP: one process keeps the sealed state."""
    server = HttpTestServer()
    request.addfinalizer(server.stop)
    return chat_with(settings, client, alice, http_servers_file(tmp_path, server.url))


@pytest.mark.parametrize("transport", ["conversation", "http_conversation"])
def test_every_supported_type_is_answered_and_accepted_by_the_servers_model(
    request, client, transport, completions
):
    conversation = request.getfixturevalue(transport)
    send(client, conversation, "profile")
    question = pending(conversation)
    assert question.message == "Tell me about yourself"
    assert Turn.objects.get().status == Turn.Status.WAITING
    assert answer(client, question, **PROFILE).status_code == 200
    [reply] = said(conversation)
    assert json.loads(reply.removeprefix("Profile: ")) == {
        "name": "Ada",
        "age": 36,
        "height": 1.7,
        "subscribe": True,
        "plan": "pro",
        "topics": ["news", "music"],
        "nickname": None,
        "email": "ada@example.com",
        "birthday": "1815-12-10",
        "homepage": "https://ada.example.com/",
    }
    assert completions() == 1
    assert Turn.objects.get().status == Turn.Status.DONE


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_a_decline_or_cancel_reaches_the_server(client, conversation, action):
    send(client, conversation, "profile")
    answer(client, pending(conversation), action)
    assert said(conversation) == [f"No profile: {action}"]
    states = {"decline": Part.State.DECLINED, "cancel": Part.State.CANCELLED}
    assert Part.objects.get(render_kind="elicitation").state == states[action]


def url_parts(conversation) -> list[tuple[str, str]]:
    parts = Part.objects.filter(conversation=conversation, render_kind__in=["url", "url-wait"])
    return list(parts.order_by("call_index").values_list("render_kind", "state"))


def test_a_url_request_is_opened_then_done_and_the_call_resumes(client, conversation):
    send(client, conversation, "login")
    card = pending(conversation)
    assert (card.render_kind, card.normalized["url"]) == ("url", "https://example.com/login")
    answer(client, card, "accept")  # Open
    wait = pending(conversation)
    assert wait.render_kind == "url-wait"
    answer(client, wait, "accept")  # I'm done
    assert said(conversation) == ["Login: accept"]


def test_a_url_required_error_shows_the_page_and_calls_again(client, conversation):
    send(client, conversation, "needs_login")
    answer(client, pending(conversation), "accept")
    answer(client, pending(conversation), "accept")
    assert said(conversation) == ["Logged in earlier."]
    assert url_parts(conversation) == [("url", "submitted"), ("url-wait", "submitted")]

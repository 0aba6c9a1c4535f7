"""Headers of a Streamable HTTP server take their values from MCP_* environment variables
when a connection opens: the server receives exactly that value, and it is never stored or
logged."""

import hashlib
import io
import logging

import pytest
from django.core.management import call_command

from playground.runs.models import Conversation
from tests.support.mcp_support import HttpTestServer, chat_with, http_servers_file
from tests.support.runtime_helpers import said, send

pytestmark = pytest.mark.django_db(transaction=True)

SECRET = "Bearer mcp-header-secret-8f3a1c"
HEADERS = 'headers = { Authorization = "MCP_TEST_AUTH" }\n'


@pytest.fixture
def conversation(request, settings, tmp_path, client, alice) -> Conversation:
    server = HttpTestServer()
    request.addfinalizer(server.stop)
    path = http_servers_file(tmp_path, server.url, extra=HEADERS)
    return chat_with(settings, client, alice, path)


@pytest.fixture
def logs(caplog):
    """Every log record at any level, also from the loggers that do not propagate."""
    caplog.set_level(logging.DEBUG)
    playground = logging.getLogger("playground")
    playground.addHandler(caplog.handler)
    yield caplog
    playground.removeHandler(caplog.handler)


def stored() -> str:
    """Return every row of every table, as dumpdata writes them."""
    out = io.StringIO()
    call_command("dumpdata", stdout=out)
    return out.getvalue()


def test_the_server_receives_the_value_of_the_environment_variable(
    client, conversation, monkeypatch, logs
):
    monkeypatch.setenv("MCP_TEST_AUTH", SECRET)
    send(client, conversation, "authorization")
    assert said(conversation) == [
        "Authorization: sha256 " + hashlib.sha256(SECRET.encode()).hexdigest()
    ]
    assert "send_request_headers" in logs.text  # the requests were logged, down to DEBUG
    assert "Authorization: sha256" in stored()  # (the dump holds the chat)
    assert "mcp-header-secret" not in stored()
    assert "mcp-header-secret" not in logs.text


def test_an_unset_variable_sends_no_header(client, conversation, monkeypatch):
    monkeypatch.delenv("MCP_TEST_AUTH", raising=False)
    send(client, conversation, "authorization")
    assert said(conversation) == ["Authorization: none"]

"""An MCP conversation's Wire panel: the JSON-RPC messages exchanged with the server (the SDK-built
test server over Streamable HTTP, with an Authorization header from the environment), in
order, with their direction, kind, method and size; the header's value is in no message, no
table and no page. Only the owner sees it. A tool's text result is shown as the text it is,
markdown only where the server says so, and its raw JSON is beside it."""

import html
import io
import re

import pytest
from django.core.management import call_command

from playground.runs.models import Conversation, WireMessage
from tests.support.live_server import wait_for
from tests.support.mcp_support import HttpTestServer, chat_with, http_servers_file
from tests.support.runtime_helpers import send

pytestmark = pytest.mark.django_db(transaction=True)

SECRET = "Bearer mcp-wire-secret-4d2e9b"
HEADERS = 'headers = { Authorization = "MCP_TEST_AUTH" }\n'


@pytest.fixture
def conversation(request, settings, tmp_path, client, alice, monkeypatch) -> Conversation:
    monkeypatch.setenv("MCP_TEST_AUTH", SECRET)
    server = HttpTestServer()
    request.addfinalizer(server.stop)
    path = http_servers_file(tmp_path, server.url, extra=HEADERS)
    return chat_with(settings, client, alice, path)


def logged(conversation: Conversation) -> list[tuple[str, str, str]]:
    rows = WireMessage.objects.filter(conversation=conversation).order_by("id")
    return list(rows.values_list("direction", "kind", "method"))


def test_the_panel_lists_the_exchange_and_never_a_header_value(client, conversation):
    send(client, conversation, 'echo {"text": "over the wire"}')
    wait_for(lambda: ("received", "response", "tools/call") in logged(conversation))

    exchange = [entry for entry in logged(conversation) if entry[2] in ("tools/list", "tools/call")]
    assert exchange == [
        ("sent", "request", "tools/list"),
        ("received", "response", "tools/list"),
        ("sent", "request", "tools/call"),
        ("received", "response", "tools/call"),
    ]
    page = html.unescape(client.get(f"/c/{conversation.pk}/wire").content.decode())
    assert "Connecting to http://127.0.0.1" in page
    assert "Authorization: [redacted]" in page
    assert re.search(
        r"→ sent\s*</span>\s*<span class=\"wire-kind\">request</span>\s*"
        r"<code class=\"wire-method\">tools/call</code>",
        page,
    )
    call = WireMessage.objects.get(conversation=conversation, kind="request", method="tools/call")
    assert '"text": "over the wire"' in call.body and f"{call.size} bytes" in page
    assert "mcp-wire-secret" not in page
    dump = io.StringIO()
    call_command("dumpdata", stdout=dump)
    assert "mcp-wire-secret" not in dump.getvalue()


def test_the_chat_offers_the_panel_and_only_its_owner_sees_it(client, conversation, bob):
    page = client.get(conversation.get_absolute_url()).content.decode()
    assert f'hx-get="/c/{conversation.pk}/wire"' in page
    assert "Wire: messages with the server" in page
    client.force_login(bob)
    assert client.get(f"/c/{conversation.pk}/wire").status_code == 404


def test_text_is_shown_as_text_markdown_where_the_server_says_and_the_raw_result_beside(
    client, conversation
):
    send(client, conversation, "report")
    page = client.get(conversation.get_absolute_url()).content.decode()
    # JSON keeps its escapes (markdown would have eaten the backslashes).
    text = html.escape('{"say": "\\"hi\\"", "path": "C:\\\\temp"}')
    assert f'<p class="plain-text">{text}</p>' in page
    assert "<strong>Done</strong>" in page  # a text/markdown resource
    raw = page.split("<dt>Raw result</dt>")[1].split("</pre>")[0]
    assert html.escape('"mimeType": "text/markdown"') in raw
    assert html.escape('"type": "text"') in raw

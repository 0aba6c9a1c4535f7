"""An AG-UI conversation's Wire panel: each run's RunAgentInput as POSTed and every event of its
stream, in order, with their direction, kind, event type and size as they travelled; header
values and secret-looking text are in no message, no page and no dump. Only the owner sees it."""

import html
import io
import json

import pytest
from django.core.management import call_command

from playground.runs.models import Conversation, Turn, WireMessage
from tests.support.agui_support import BROKEN_SERVER, agents_file, chat_with, serving
from tests.support.live_server import wait_for
from tests.support.runtime_helpers import said, send

pytestmark = pytest.mark.django_db(transaction=True)

SECRET = "Bearer agui-wire-secret-7c1f3a"
TOKEN = "ghp_" + "a1B2c3D4" * 4  # secret-shaped text a person pasted into a message
HEADERS = 'headers = { Authorization = "AGUI_WIRE_AUTH" }\n'


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serving(BROKEN_SERVER, tmp_path_factory)


@pytest.fixture
def chat(settings, tmp_path, client, alice, server, monkeypatch):
    monkeypatch.setenv("AGUI_WIRE_AUTH", SECRET)

    def start(path: str) -> Conversation:
        file = agents_file(tmp_path, server.url(path), HEADERS)
        return chat_with(settings, client, alice, file)

    return start


def logged(conversation: Conversation) -> list[tuple[str, str, str]]:
    rows = WireMessage.objects.filter(conversation=conversation).order_by("id")
    return list(rows.values_list("direction", "kind", "method"))


def test_the_panel_lists_the_run_input_and_every_event_and_never_a_secret(client, chat, server):
    conversation = chat("state")
    send(client, conversation, f"count, and my token is {TOKEN}")
    assert said(conversation) == ["Count is 1."]
    wait_for(lambda: ("received", "event", "RUN_FINISHED") in logged(conversation))

    types = [
        "RUN_STARTED",
        "STATE_SNAPSHOT",
        "STATE_DELTA",
        "STEP_STARTED",
        "STEP_FINISHED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "RUN_FINISHED",
    ]
    assert logged(conversation) == [
        ("event", "event", ""),  # where it was POSTed
        ("sent", "request", "RunAgentInput"),
        ("event", "event", ""),  # the HTTP answer
        *[("received", "event", kind) for kind in types],
    ]
    run_id = f"{Turn.objects.get().pk}-0"
    sent = WireMessage.objects.get(conversation=conversation, kind="request")
    received = server.runs("state")[-1]
    assert json.loads(sent.body)["runId"] == run_id == received["runId"]
    assert sent.size == len(json.dumps(received, ensure_ascii=False, separators=(",", ":")))
    delta = WireMessage.objects.get(conversation=conversation, method="STATE_DELTA")
    assert json.loads(delta.body)["delta"][0] == {"op": "replace", "path": "/count", "value": 1}
    assert delta.size == len(json.dumps(json.loads(delta.body)))  # as the server sent it

    page = html.unescape(client.get(f"/c/{conversation.pk}/wire").content.decode())
    assert f"POST of run {run_id} to {server.url('state')}; with Authorization: [redacted]." in page
    assert "HTTP 200, text/event-stream." in page
    assert "STATE_DELTA" in page and f"{delta.size} bytes" in page
    assert "my token is [redacted]" in page
    dump = io.StringIO()
    call_command("dumpdata", "playground.wiremessage", stdout=dump)
    for text in (page, dump.getvalue()):
        assert "agui-wire-secret" not in text and TOKEN not in text


def test_a_failed_run_shows_the_error_event_and_why(client, chat):
    conversation = chat("run-error")
    send(client, conversation, "paint")
    failed = WireMessage.objects.filter(conversation=conversation, body__startswith="The run")
    wait_for(failed.exists)

    assert ("received", "error", "RUN_ERROR") in logged(conversation)
    page = html.unescape(client.get(f"/c/{conversation.pk}/wire").content.decode())
    assert "The run failed: the agent reported an error (E42): the model is down" in page


def test_the_chat_offers_the_panel_and_only_its_owner_sees_it(client, chat, bob):
    conversation = chat("state")
    page = client.get(conversation.get_absolute_url()).content.decode()
    assert f'hx-get="/c/{conversation.pk}/wire"' in page
    client.force_login(bob)
    assert client.get(f"/c/{conversation.pk}/wire").status_code == 404

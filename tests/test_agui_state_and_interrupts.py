"""An AG-UI agent's state is kept (snapshots and JSON Patch deltas) and sent on the next run;
its interrupts are questions, resumed with the answer as the resume payload; a CUSTOM `render`
event sets a part's kind only to one that can show it (a card that asks, or one that only
shows); `agui_check` says what it found."""

import io
import json
from html import escape

import pytest
from django.core.management import CommandError, call_command

from elicitation.models import Part
from playground.runs.models import Agent, Step, Turn
from tests.support.agui_support import BROKEN_SERVER, agents_file, chat_with, serving
from tests.support.live_server import free_port
from tests.support.runtime_helpers import answer, open_tab, pending, said, send

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serving(BROKEN_SERVER, tmp_path_factory)


@pytest.fixture
def chat(settings, tmp_path, client, alice, server):
    def start(path: str):
        return chat_with(settings, client, alice, agents_file(tmp_path, server.url(path)))

    return start


def test_the_state_is_kept_from_turn_to_turn(chat, client, server):
    conversation = chat("state")
    send(client, conversation, "count")
    send(client, conversation, "count again")
    assert said(conversation)[-1] == "Count is 2."
    first, second = Turn.objects.order_by("index")
    assert server.runs("state")[-1]["state"] == {"count": 1, "seen": [f"{first.pk}-0"]}
    after = Step.objects.get(turn=second, name="AG-UI conversation after the turn")
    assert after.result["state"] == {"count": 2, "seen": [f"{second.pk}-0"]}
    run = Step.objects.get(turn=second, name=f"AG-UI run {second.pk}-0")
    assert run.outcome.endswith(f'state {{"count": 2, "seen": ["{second.pk}-0"]}}')
    assert escape(run.outcome) in client.get(conversation.get_absolute_url()).content.decode()


def test_the_agents_steps_are_shown(chat, client):
    conversation = chat("state")
    send(client, conversation, "count")
    assert said(conversation) == ["Count is 1."]
    [step] = Step.objects.filter(shown=True, name__startswith="step ")
    assert (step.name, step.status) == ("step counting", "done")
    assert "step counting" in client.get(conversation.get_absolute_url()).content.decode()


def test_an_interrupt_is_a_question_resumed_with_the_answer(chat, client, server):
    conversation = chat("interrupt")
    send(client, conversation, "paint")
    part = pending(conversation)
    assert part.message == "Which colour for the walls?"
    assert Turn.objects.get().status == Turn.Status.WAITING
    answer(client, part, colour="red")
    assert said(conversation) == ['Resumed: {"colour": "red"}.']
    resume = server.runs("interrupt")[-1]["resume"]
    assert resume == [{"interruptId": "int-1", "status": "resolved", "payload": {"colour": "red"}}]


def test_a_declined_interrupt_is_resumed_as_cancelled(chat, client, server):
    conversation = chat("interrupt")
    send(client, conversation, "paint")
    answer(client, pending(conversation), action="decline")
    assert said(conversation) == ["Resumed: no."]
    assert server.runs("interrupt")[-1]["resume"] == [
        {"interruptId": "int-1", "status": "cancelled"}
    ]


def test_an_interrupt_about_a_tool_call_is_an_approval_card(chat, client, server):
    conversation = chat("approval-interrupt")
    send(client, conversation, "clean up")
    card = pending(conversation)
    assert (card.render_kind, card.message) == ("approval", "Delete the staging database?")
    answer(client, card, scope="once")
    assert said(conversation) == ['Resumed: {"approved": true}.']
    [entry] = server.runs("approval-interrupt")[-1]["resume"]
    assert entry == {"interruptId": "int-2", "status": "resolved", "payload": {"approved": True}}


def test_an_interrupts_schema_the_contract_refuses_is_degraded_and_the_agent_told_why(
    chat, client, server
):
    conversation = chat("bad-schema-interrupt")
    send(client, conversation, "move")
    part = Part.objects.get(conversation=conversation)
    assert part.state == Part.State.DEGRADED and "address" in part.degraded_reason
    [entry] = server.runs("bad-schema-interrupt")[-1]["resume"]
    assert entry["status"] == "resolved"
    assert entry["payload"].startswith("elicitation: unsupported payload — ")
    assert part.degraded_reason in entry["payload"]
    assert Turn.objects.get().status == Turn.Status.DONE


def test_an_interrupt_with_nothing_to_ask_is_settled_as_not_handled(chat, client, server):
    conversation = chat("empty-interrupt")
    send(client, conversation, "go")
    part = Part.objects.get(conversation=conversation)
    assert part.state == Part.State.DEGRADED
    [entry] = server.runs("empty-interrupt")[-1]["resume"]
    assert entry == {
        "interruptId": "int-4",
        "status": "resolved",
        "payload": {"status": "not_handled", "message": "Not handled by this client."},
    }
    assert Turn.objects.get().status == Turn.Status.DONE


def test_a_resumed_run_may_not_end_a_call_nobody_started(chat, client):
    conversation = chat("stray-result")
    send(client, conversation, "clean up")
    answer(client, pending(conversation), scope="once")
    turn = Turn.objects.get()
    assert turn.status == Turn.Status.FAILED
    [error] = turn.messages.filter(role="error").values_list("text", flat=True)
    assert "TOOL_CALL_RESULT for 'c-other', a call this run did not start" in error


def test_a_render_event_for_a_kind_that_cannot_show_the_call_is_ignored(chat, client):
    conversation = chat("render")
    send(client, conversation, "paint")
    part = pending(conversation)
    assert part.render_kind == "elicitation"
    answer(client, part, colour="green")
    assert said(conversation) == ["Thanks."]


def test_a_render_event_for_a_kind_that_asks_shows_that_kind_and_returns_its_answer(chat, client):
    conversation = chat("render-config")
    tab = open_tab(conversation.pk)
    send(client, conversation, "paint")
    card = pending(conversation)
    assert (card.render_kind, card.message, card.value) == (
        "config-card",
        "Paint it this way?",
        {"colour": "green"},
    )
    [pushed] = [html for html in tab() if f'id="part-{card.pk}"' in html]
    assert "part--config-card" in pushed and 'data-state="pending"' in pushed
    answer(client, card)  # Accept, as proposed
    card.refresh_from_db()
    assert card.state == Part.State.SUBMITTED
    assert said(conversation) == ['Got {"action": "accept", "content": {"colour": "green"}}.']


def test_a_render_event_for_a_kind_that_only_shows_is_a_card_and_the_run_goes_on(chat, client):
    conversation = chat("render-display")
    send(client, conversation, "plan")
    card = Part.objects.get(conversation=conversation)
    assert (card.render_kind, card.state) == ("display", Part.State.SUBMITTED)
    page = client.get(conversation.get_absolute_url()).content.decode()
    assert "<h3>Plan</h3>" in page and "<dt>Walls</dt><dd>green</dd>" in page
    assert said(conversation) == ['Got {"action": "accept", "content": {}}.']
    assert Turn.objects.get().status == Turn.Status.DONE


def test_agui_check_reports_a_working_agent(settings, tmp_path, server):
    settings.AGUI_AGENTS_FILE = str(agents_file(tmp_path, server.url("state")))
    out = io.StringIO()
    call_command("agui_check", stdout=out)
    assert "test: OK: AG-UI run of" in out.getvalue()
    assert Agent.objects.get(slug="agui-test").config["status"].startswith("OK")


def test_agui_check_says_why_an_agent_cannot_be_run(settings, tmp_path, server):
    settings.AGUI_AGENTS_FILE = str(agents_file(tmp_path, server.url("html")))
    out = io.StringIO()
    with pytest.raises(CommandError, match="1 of 1 AG-UI agent"):
        call_command("agui_check", stdout=out)
    assert "not an event stream (is this an AG-UI endpoint?)" in out.getvalue()


def test_agui_check_says_when_nothing_answers(settings, tmp_path):
    settings.AGUI_AGENTS_FILE = str(agents_file(tmp_path, f"http://127.0.0.1:{free_port()}/"))
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("agui_check", stdout=out)
    assert "refused the connection" in out.getvalue()


def test_agui_check_says_when_the_agent_refuses_the_version(settings, tmp_path, server):
    settings.AGUI_AGENTS_FILE = str(agents_file(tmp_path, server.url("old")))
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("agui_check", stdout=out)
    assert "did not accept the run input (HTTP 422): is it an AG-UI 1.0 agent?" in out.getvalue()


def test_agui_check_says_when_tls_fails(settings, tmp_path, server):
    url = server.url("state").replace("http://", "https://")  # a plain HTTP port
    settings.AGUI_AGENTS_FILE = str(agents_file(tmp_path, url))
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("agui_check", stdout=out)
    assert "the TLS handshake failed" in out.getvalue()


def test_agui_check_refuses_a_bad_agents_file(settings, tmp_path):
    path = tmp_path / "agents.toml"
    path.write_text('[agents.test]\nurl = "ftp://x"\n')
    settings.AGUI_AGENTS_FILE = str(path)
    with pytest.raises(CommandError, match=r"agents\.test\.url: an AG-UI agent needs an http"):
        call_command("agui_check")


def test_headers_come_only_from_agui_and_mcp_variables(settings, tmp_path):
    path = tmp_path / "agents.toml"
    path.write_text(
        '[agents.test]\nurl = "http://127.0.0.1:1/"\nheaders = { Authorization = "SECRET_KEY" }\n'
    )
    settings.AGUI_AGENTS_FILE = str(path)
    with pytest.raises(CommandError, match="'SECRET_KEY' is not allowed"):
        call_command("agui_check")


def test_a_header_is_read_from_its_variable_when_the_run_starts(
    settings, tmp_path, server, monkeypatch
):
    extra = 'headers = { Authorization = "MCP_PAINTER_AUTH", X-Team = "AGUI_PAINTER_TEAM" }\n'
    settings.AGUI_AGENTS_FILE = str(agents_file(tmp_path, server.url("state"), extra))
    monkeypatch.setenv("MCP_PAINTER_AUTH", "Bearer painter-1")
    monkeypatch.setenv("AGUI_PAINTER_TEAM", "walls")
    call_command("agui_check", stdout=io.StringIO())
    last = json.loads(server.log.read_text().splitlines()[-1])
    assert last["headers"] == {"Authorization": "Bearer painter-1", "X-Team": "walls"}
    assert "painter-1" not in json.dumps(list(Agent.objects.values()), default=str)

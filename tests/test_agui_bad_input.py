"""An AG-UI endpoint that gets the protocol wrong fails the run with a message naming the
problem: nothing half-asked stays waiting, and the limits are named."""

import html

import pytest

from elicitation.models import Part
from playground.runs.models import Message, Step, Turn
from tests.support.agui_support import BROKEN_SERVER, agents_file, chat_with, serving
from tests.support.live_server import free_port
from tests.support.runtime_helpers import said, send

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serving(BROKEN_SERVER, tmp_path_factory)


@pytest.fixture
def run(settings, tmp_path, client, alice, server):
    """Send one message to the broken endpoint at `path`; return the error the chat shows."""

    def send_to(path: str) -> str:
        conversation = chat_with(settings, client, alice, agents_file(tmp_path, server.url(path)))
        send(client, conversation, "hello")
        turn = Turn.objects.get(conversation=conversation)
        assert turn.status == Turn.Status.FAILED
        assert not Part.objects.filter(conversation=conversation, state=Part.State.PENDING)
        [error] = Message.objects.filter(turn=turn, role=Message.Role.ERROR)
        return error.text

    return send_to


def test_an_event_that_is_not_json(run):
    assert "Test agent sent a bad stream: an event is not JSON" in run("malformed")


def test_content_before_the_run_started(run):
    assert "TEXT_MESSAGE_CONTENT came before RUN_STARTED (events out of order)" in run(
        "out-of-order"
    )


def test_an_unknown_event_type(run):
    assert "unknown event type 'TELEPORT'" in run("unknown-event")


def test_an_event_missing_a_field(run):
    error = run("missing-field")
    assert "a malformed TOOL_CALL_START event (toolCallName: Field required)" in error


def test_a_call_to_a_frontend_tool_we_do_not_offer(run):
    assert (
        "the agent called the frontend tool 'open_door', which this playground does not offer"
        in run("unknown-tool")
    )


def test_a_huge_event_names_the_limit(run):
    error = run("huge")
    assert "is over the limit of 1,048,576 bytes (AGUI_MAX_EVENT_BYTES)" in error


def test_too_many_events_names_the_limit(run, settings):
    settings.AGUI_MAX_EVENTS = 20
    assert "more than 20 events (AGUI_MAX_EVENTS)" in run("many")


def test_a_run_that_takes_too_long_names_the_limit(run, settings):
    settings.AGUI_RUN_SECONDS = 0.5
    assert "did not finish its run within 0.5 seconds (AGUI_RUN_SECONDS)" in run("slow")


def test_run_error_is_a_clear_failure(run):
    assert "the agent reported an error (E42): the model is down" in run("run-error")


def test_a_stream_cut_mid_run_is_reported(run):
    assert "the stream ended before RUN_FINISHED (cut mid-run); send your message again" in run(
        "cut"
    )


def test_the_text_before_a_cut_is_kept_and_says_it_was_cut_off(
    settings, tmp_path, client, alice, server
):
    conversation = chat_with(settings, client, alice, agents_file(tmp_path, server.url("cut")))
    send(client, conversation, "paint it")
    cut = "the stream ended before RUN_FINISHED (cut mid-run); send your message again to retry"
    reply, error = said(conversation)
    assert reply == f"Half\n\n(The agent's reply was cut off: {cut})"
    assert cut in error
    page = html.unescape(client.get(conversation.get_absolute_url()).content.decode())
    assert "<p>Half</p>" in page and "(The agent's reply was cut off: the stream ended" in page
    turn = Turn.objects.get(conversation=conversation)
    run = Step.objects.get(turn=turn, name=f"AG-UI run {turn.pk}-0")
    assert run.status == Step.Status.ERROR
    assert run.outcome.endswith("the reply so far is kept, marked as cut off")


def test_a_turn_cut_mid_run_can_be_retried(settings, tmp_path, client, alice, server):
    path = agents_file(tmp_path, server.url("cut-once"))
    conversation = chat_with(settings, client, alice, path)
    send(client, conversation, "paint it")
    send(client, conversation, "paint it")  # again, as the error says
    first, second = Turn.objects.filter(conversation=conversation).order_by("index")
    assert (first.status, second.status) == (Turn.Status.FAILED, Turn.Status.DONE)
    assert said(conversation)[-1] == "Done: ['paint it']."  # the failed turn is not replayed


def test_a_delta_that_does_not_apply(run):
    assert "a STATE_DELTA that does not apply to the state" in run("bad-delta")


def test_a_page_that_is_not_an_event_stream(run):
    assert "it answered with text/html, not an event stream (is this an AG-UI endpoint?)" in run(
        "html"
    )


def test_no_endpoint_at_that_url(run):
    assert "answered HTTP 404: no AG-UI endpoint at that URL" in run("missing")


def test_a_refused_connection(settings, tmp_path, client, alice):
    path = agents_file(tmp_path, f"http://127.0.0.1:{free_port()}/")
    conversation = chat_with(settings, client, alice, path)
    send(client, conversation, "hello")
    error = Message.objects.get(turn__conversation=conversation, role=Message.Role.ERROR)
    assert "refused the connection: is it running?" in error.text

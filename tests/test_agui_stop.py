"""Stop ends an AG-UI run even while the agent is silent: the run lets go within a second,
the agent's stream is closed, the turn is stopped, and the next message runs."""

import threading

import pytest
from asgiref.sync import async_to_sync

from playground.runs.models import Turn
from playground.runs.tasks import execute_turn
from tests.support.agui_support import BROKEN_SERVER, AguiServer, agents_file, chat_with
from tests.support.live_server import wait_for
from tests.support.runtime_helpers import said

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def server(tmp_path):
    started = AguiServer(BROKEN_SERVER, tmp_path / "runs.log")
    yield started
    (tmp_path / "release").touch()  # lets its held stream end
    started.stop()


def test_stop_ends_a_run_while_the_agent_is_silent(settings, tmp_path, client, alice, server):
    settings.JOBS_RUN_IN = "workers"  # the turn waits in the queue; this test runs it
    conversation = chat_with(settings, client, alice, agents_file(tmp_path, server.url("stream")))
    client.post(f"/c/{conversation.pk}/send", {"text": "paint the fence"})
    turn = Turn.objects.get()
    run = threading.Thread(target=async_to_sync(execute_turn), args=(turn.pk,))
    run.start()
    # The agent holds after its first words (until `release` exists): the run is mid-stream.
    wait_for(lambda: Turn.objects.get().partial_text == "Painting the" or not run.is_alive())
    assert Turn.objects.get().partial_text == "Painting the"

    client.post(f"/c/{conversation.pk}/stop", HTTP_HX_REQUEST="true")
    run.join(timeout=10)
    assert not run.is_alive()  # it noticed while the agent was still silent
    turn.refresh_from_db()
    assert turn.status == Turn.Status.STOPPED
    [step] = turn.steps.filter(shown=True)
    assert (step.status, step.outcome) == ("interrupted", "Stopped: you stopped this reply.")
    assert said(conversation) == []

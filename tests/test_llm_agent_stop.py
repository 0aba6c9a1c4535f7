"""Stop ends a reply cleanly: the run lets go, the turn is stopped, and nothing runs it again."""

import asyncio
import threading

import pytest
from asgiref.sync import async_to_sync

from playground.runs import recovery
from playground.runs.models import Turn
from playground.runs.tasks import execute_turn
from tests.support.fake_openai import MODEL, FakeOpenAI, text
from tests.support.live_server import wait_for
from tests.support.llm_support import logged_in  # noqa: F401
from tests.support.runtime_helpers import said

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("logged_in")]


@pytest.fixture
def fake(settings):
    fake = FakeOpenAI(text("Once upon a time there was a fence.", hold=True))
    settings.LLM_BASE_URL, settings.LLM_MODELS = fake.base_url, [MODEL]
    yield fake
    fake.close()


def test_stop_ends_a_streaming_reply_and_recovery_leaves_it_alone(client, fake, settings):
    settings.JOBS_RUN_IN = "workers"  # the turn waits in the queue; this test runs it
    client.post("/llm-agents/new", {"name": "Teller", "model": f"default/{MODEL}"})
    conversation = client.get("/").context["conversations"][0]
    client.post(f"/c/{conversation.pk}/send", {"text": "tell me a story"})
    turn = Turn.objects.get()
    run = threading.Thread(target=async_to_sync(execute_turn), args=(turn.pk,))
    run.start()
    # The model holds after its first word, so the run is mid-stream once "Once" is stored. A
    # run that ended instead (an error) ends the wait at once, with what it said.
    wait_for(lambda: Turn.objects.get().partial_text == "Once" or not run.is_alive(), timeout=60)
    stored = Turn.objects.get()
    assert stored.partial_text == "Once", (stored.status, said(conversation))

    status = client.post(f"/c/{conversation.pk}/stop", HTTP_HX_REQUEST="true")
    assert status.status_code == 200
    assert "is working" not in status.content.decode()
    run.join(timeout=10)
    assert not run.is_alive()  # the run noticed while the model was still talking

    turn.refresh_from_db()
    assert turn.status == Turn.Status.STOPPED
    assert said(conversation) == []  # no error message: the person stopped it
    [step] = turn.steps.filter(shown=True)  # the model request, cut short
    assert (step.status, step.outcome) == ("interrupted", "Stopped: you stopped this reply.")
    assert recovery.start_up(only_runner=True) == {"interrupted": [], "answered": []}
    page = client.get(f"/c/{conversation.pk}/").content.decode()
    assert "Once" in page and "You stopped this reply." in page
    # The person can send again, and the next turn runs.
    fake.replies = [text("Sure.")]
    fake.release()
    client.post(f"/c/{conversation.pk}/send", {"text": "something shorter"})
    asyncio.run(execute_turn(Turn.objects.get(index=1).pk))
    assert said(conversation) == ["Sure."]

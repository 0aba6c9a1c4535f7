"""An LLM agent survives SIGKILLs of the playground: while its question waits, and while a model
call is in flight. Recorded model requests are never sent again; only the interrupted one is."""

import pytest

from tests.support.fake_openai import MODEL, FakeOpenAI, text, tool_calls
from tests.support.live_server import LiveClient, wait_for
from tests.support.restart_support import USERS, chat_until_asked, one, serving

COLOUR = {"type": "object", "properties": {"colour": {"type": "string", "enum": ["red", "green"]}}}


@pytest.fixture
def fake():
    fake = FakeOpenAI(
        tool_calls(("request_input", {"message": "Which colour?", "requestedSchema": COLOUR})),
        text("Painting it green now.", hold=True),
    )
    yield fake
    fake.close()


@pytest.fixture
def server(tmp_path, fake):
    yield from serving(tmp_path, {"LLM_BASE_URL": fake.base_url, "LLM_MODELS": MODEL})


def test_kills_while_the_question_waits_and_while_the_model_answers(server, fake):
    new_agent = {"name": "Painter", "model": f"default/{MODEL}"}
    _, conversation_id, part_id = chat_until_asked(
        server, "/llm-agents/new", new_agent, "paint the fence"
    )

    server.kill()  # while the question waits
    server.start()
    client = LiveClient(server, "alice", USERS["alice"])
    assert len(fake.requests) == 1  # the restart did not ask the model again
    client.post(f"/parts/{part_id}/settle", {"action": "accept", "answer.colour": "green"})
    # The model streams its first word and holds: the reply so far is on the turn.
    wait_for(lambda: one(server, "SELECT partial_text FROM playground_turn") == "Painting")
    _, page = client.get(f"/c/{conversation_id}/")
    assert "Painting" in page  # a reload shows the text so far

    server.kill()  # while the model call is in flight
    server.start()
    wait_for(lambda: len(fake.requests) == 3, message="the interrupted call was not re-issued")
    fake.release()
    wait_for(lambda: one(server, "SELECT status FROM playground_turn") == "done")

    # Only the interrupted request went out again, exactly as before.
    assert fake.requests[2] == fake.requests[1]
    said = server.query("SELECT text FROM playground_message ORDER BY call_index")
    assert said == [("Painting it green now.",)]
    assert one(server, "SELECT partial_text FROM playground_turn") == ""

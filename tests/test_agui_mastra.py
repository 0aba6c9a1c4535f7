"""A Mastra agent in the chat: the docs' example (docs/examples/mastra, its pinned packages,
`node server.mjs` as written) with the suite's fake OpenAI-compatible model.

Its tool's `suspend()` for input is a form with the resume schema's fields and the tool's
words; Submit resumes the tool with the typed values and the reply streams; Decline resumes
nothing; a suspend with no resume schema is an approval card; a reload and a second tab keep
the form; the suspended tool survives a restart of Mastra (its libsql storage), and a SIGKILL
of the playground sends exactly one resume.
"""

import json

import pytest
from django.test import Client

from elicitation.models import Part
from playground.runs.models import Step, Turn
from tests.support.agui_support import agents_file, chat_with
from tests.support.fake_openai import FakeOpenAI, text, tool_calls
from tests.support.live_server import LiveClient, wait_for
from tests.support.mastra_support import MastraServer
from tests.support.restart_support import USERS, chat_until_asked, one, serving
from tests.support.runtime_helpers import answer, open_tab, pending, said, send

pytestmark = pytest.mark.django_db(transaction=True)

BOOK = tool_calls(("book_hotel", {"trip": "a weekend away"}))
QUESTION = "Where to, and for how long? (a weekend away)"


@pytest.fixture(scope="module")
def model():
    fake = FakeOpenAI(text("unused"))
    yield fake
    fake.close()


@pytest.fixture(scope="module")
def mastra(tmp_path_factory, model):
    server = MastraServer(tmp_path_factory.mktemp("mastra"), model.base_url)
    yield server
    server.kill()


def script(model: FakeOpenAI, *replies) -> None:
    """Give the shared model this test's replies, one per request, from its first request."""
    model.replies[:] = replies
    model.requests.clear()


@pytest.fixture
def chat(settings, tmp_path, client, alice, mastra):
    return chat_with(settings, client, alice, agents_file(tmp_path, mastra.url))


def tool_results(request: dict) -> list:
    return [json.loads(m["content"]) for m in request["messages"] if m["role"] == "tool"]


def resume_sent(turn: Turn) -> list[dict]:
    """Return the resume entries of the turn's second run, as it was POSTed."""
    return Step.objects.get(turn=turn, name=f"AG-UI run {turn.pk}-1").result["input"]["resume"]


def test_a_suspending_tools_question_is_a_form_with_its_fields_and_message(chat, client, model):
    script(model, BOOK)
    send(client, chat, "a weekend away")
    part = pending(chat)
    assert (part.render_kind, part.message) == ("elicitation", QUESTION)
    assert Turn.objects.get().status == Turn.Status.WAITING
    page = client.get(chat.get_absolute_url()).content.decode()
    assert QUESTION in page
    for name, label in (("city", "City"), ("nights", "Nights")):  # zod's .describe() as label
        assert f'name="answer.{name}"' in page
        assert f">{label}" in page


def test_submit_resumes_the_tool_with_the_typed_values_and_the_reply_streams(chat, client, model):
    script(model, BOOK, text("Your stay is booked."))
    send(client, chat, "a weekend away")
    answer(client, pending(chat), city="Porto", nights="3")
    assert said(chat) == ["Your stay is booked."]
    turn = Turn.objects.get()
    [entry] = resume_sent(turn)
    assert entry == {
        "interruptId": f"{turn.pk}-0::call_1_0",
        "status": "resolved",
        "payload": {"city": "Porto", "nights": 3},
    }
    # The tool ran with an integer: its result reached the model, and shows as its step's end.
    assert tool_results(model.requests[1]) == [{"booked": "3 nights in Porto"}]
    step = Step.objects.get(turn=turn, name="tool book_hotel")
    assert (step.status, json.loads(step.outcome)) == ("done", {"booked": "3 nights in Porto"})


def test_decline_resumes_the_tool_as_a_refusal(chat, client, model):
    script(model, BOOK, text("never asked for"))
    send(client, chat, "a weekend away")
    answer(client, pending(chat), action="decline")
    turn = Turn.objects.get()
    assert turn.status == Turn.Status.DONE
    assert resume_sent(turn) == [{"interruptId": f"{turn.pk}-0::call_1_0", "status": "cancelled"}]
    assert len(model.requests) == 1  # Mastra read it as "do not resume": the tool did not run
    assert Part.objects.get().state == Part.State.DECLINED


def test_a_reload_and_a_second_tab_keep_the_form(chat, client, model, alice):
    script(model, BOOK, text("Your stay is booked."))
    tab = open_tab(chat.pk)
    send(client, chat, "a weekend away")
    part = pending(chat)
    [pushed] = [html for html in tab() if f'id="part-{part.pk}"' in html]
    second = Client()
    second.force_login(alice)
    for page in (
        pushed,
        client.get(chat.get_absolute_url()).content.decode(),  # a reload
        second.get(chat.get_absolute_url()).content.decode(),  # a second tab
    ):
        assert 'data-state="pending"' in page and QUESTION in page
        assert 'name="answer.city"' in page and 'name="answer.nights"' in page
    answer(second, part, city="Porto", nights="2")
    [chip] = [html for html in tab() if f'id="part-{part.pk}"' in html]
    assert 'data-state="submitted"' in chip and "Porto" in chip
    assert said(chat) == ["Your stay is booked."]


def test_a_suspend_with_no_resume_schema_is_an_approval_card(chat, client, model):
    script(model, tool_calls(("cancel_booking", {"booking": "B-17"})), text("Cancelled."))
    send(client, chat, "cancel B-17")
    card = pending(chat)
    assert (card.render_kind, card.message) == ("approval", "Cancel booking B-17?")
    answer(client, card, scope="once")
    assert said(chat) == ["Cancelled."]
    assert tool_results(model.requests[1]) == [{"cancelled": "B-17"}]


def test_the_suspended_tool_survives_a_restart_of_mastra(chat, client, model, mastra):
    script(model, BOOK, text("Your stay is booked."))
    send(client, chat, "a weekend away")
    mastra.kill()  # while the question waits: the suspended run is in its mastra.db
    mastra.start()
    answer(client, pending(chat), city="Lisbon", nights="2")
    assert said(chat) == ["Your stay is booked."]
    assert tool_results(model.requests[1]) == [{"booked": "2 nights in Lisbon"}]


@pytest.fixture
def playground(tmp_path, model):
    """A playground of its own process (to SIGKILL) and a Mastra server of its own (the run ids
    of its database would meet the in-process tests' in a shared one)."""
    agent = MastraServer(tmp_path, model.base_url)
    path = agents_file(tmp_path, agent.url)
    yield from serving(tmp_path, {"AGUI_AGENTS_FILE": str(path)})
    agent.kill()


def test_an_answer_after_a_playground_restart_resumes_the_tool_once(playground, model):
    script(model, BOOK, text("Your stay is booked."))
    _, conversation, part_id = chat_until_asked(playground, "/agents/agui-test/new", {}, "go")

    playground.kill()  # while the question waits: nothing is held for it
    playground.start()
    client = LiveClient(playground, "alice", USERS["alice"])
    answer = {"action": "accept", "answer.city": "Porto", "answer.nights": "3"}
    client.post(f"/parts/{part_id}/settle", answer)
    wait_for(lambda: one(playground, "SELECT status FROM playground_turn") == "done")

    said = playground.query("SELECT text FROM playground_message WHERE role = 'agent'")
    assert said == [("Your stay is booked.",)]
    assert len(model.requests) == 2 and tool_results(model.requests[1]) == [
        {"booked": "3 nights in Porto"}
    ]
    # Both runs' inputs, as the wire logged them: the second is the one resume.
    sql = "SELECT body FROM playground_wiremessage WHERE conversation_id = ? AND kind = 'request'"
    sent = wait_for(lambda: len(rows := playground.query(sql, (conversation,))) == 2 and rows)
    resumes = [json.loads(body).get("resume") for (body,) in sent]
    assert resumes[0] is None and len(resumes[1]) == 1

"""The replay rules: after an answer the turn runs again from its start, and nothing repeats."""

import pytest

from elicitation.models import Part
from playground.runs.models import Message, Step, Turn
from tests.support import runtime_agents
from tests.support.runtime_helpers import answer, pending, said, send, start

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def client(client, alice):
    client.force_login(alice)
    return client


def test_it_waits_at_a_question_holding_nothing(client, alice):
    conversation = start(alice, "test-greeter")
    send(client, conversation, "hi")
    turn = Turn.objects.get(conversation=conversation)
    assert turn.status == Turn.Status.WAITING
    assert pending(conversation).message == "What should I call you?"
    assert said(conversation) == ["Hello! One question first."]


def test_it_continues_past_the_answer_with_the_content(client, alice):
    conversation = start(alice, "test-greeter")
    send(client, conversation, "hi")
    assert answer(client, pending(conversation), name="Ada").status_code == 200
    assert said(conversation) == [
        "Hello! One question first.",
        "Nice to meet you, Ada (lookup for hi).",
    ]
    assert Turn.objects.get(conversation=conversation).status == Turn.Status.DONE


def test_a_recorded_step_is_not_run_again_on_replay(client, alice):
    runtime_agents.SIDE_EFFECTS.clear()
    conversation = start(alice, "test-greeter")
    send(client, conversation, "hi")
    answer(client, pending(conversation), name="Ada")
    assert runtime_agents.SIDE_EFFECTS == ["lookup for hi"]
    assert Step.objects.get().result == "lookup for hi"


def test_a_decline_reaches_the_agent(client, alice):
    conversation = start(alice, "test-greeter")
    send(client, conversation, "hi")
    answer(client, pending(conversation), action="decline")
    assert said(conversation)[-1] == "No name then (decline)."


def test_the_same_question_in_a_later_turn_gets_a_fresh_form(client, alice):
    conversation = start(alice, "test-greeter")
    send(client, conversation, "hi")
    answer(client, pending(conversation), name="Ada")
    send(client, conversation, "hi again")
    second = pending(conversation)
    assert second.turn.index == 1
    assert said(conversation)[-1] == "Hello! One question first."


def test_a_degraded_request_returns_the_error_text_and_the_agent_continues(client, alice):
    conversation = start(alice, "test-degraded")
    send(client, conversation, "go")
    part = Part.objects.get(conversation=conversation)
    assert part.state == Part.State.DEGRADED
    assert "nested" in part.degraded_reason
    assert said(conversation) == [
        f"Tool result: elicitation: unsupported payload — {part.degraded_reason}"
    ]
    assert Turn.objects.get(conversation=conversation).status == Turn.Status.DONE


def test_an_agent_exception_fails_the_run_with_a_clear_message(client, alice):
    conversation = start(alice, "test-failing")
    send(client, conversation, "go")
    turn = Turn.objects.get(conversation=conversation)
    assert turn.status == Turn.Status.FAILED
    assert said(conversation) == [
        "Starting.",
        "The agent stopped with an error: ValueError: the upstream service said no",
    ]
    assert "Traceback" in turn.error_trace
    assert "Traceback" not in client.get(conversation.get_absolute_url()).content.decode()


def test_a_failed_run_never_shows_logs_or_keeps_a_key_its_error_quoted(client, alice, caplog):
    conversation = start(alice, "test-failing")
    send(client, conversation, "with a key")
    turn = Turn.objects.get(conversation=conversation)
    assert said(conversation)[-1] == (
        "The agent stopped with an error: RuntimeError: card declined for order-42 "
        "(api_key=[redacted])"
    )
    assert turn.error == said(conversation)[-1] and "Traceback" in turn.error_trace
    kept = turn.error + turn.error_trace + caplog.text
    assert runtime_agents.CARD_KEY not in kept and "agent run failed" in caplog.text


def test_display_settles_itself_and_unknown_kinds_are_not_handled(client, alice):
    conversation = start(alice, "test-kinds")
    send(client, conversation, "go")
    display, chart = Part.objects.filter(conversation=conversation).order_by("call_index")
    assert display.state == Part.State.SUBMITTED
    assert chart.response == {"status": "not_handled", "message": "Not handled by this client."}
    assert said(conversation) == [
        "display: accept; chart: not_handled (Not handled by this client.)"
    ]


def test_a_text_only_client_gets_a_clear_error_instead_of_a_form(client, alice):
    conversation = start(alice, "test-text-only")
    send(client, conversation, "form please", surface="text")
    assert not Part.objects.filter(conversation=conversation).exists()
    assert "UnsupportedRenderableError" in said(conversation)[-1]
    assert "cannot show a form" in said(conversation)[-1]


def test_a_text_only_client_can_reply_in_prose_when_allowed(client, alice):
    conversation = start(alice, "test-text-only")
    send(client, conversation, "prose", surface="text")
    part = pending(conversation)
    client.post(f"/parts/{part.pk}/settle", {"action": "respond", "text": "Call me Ada"})
    assert said(conversation) == ["Got respond: Call me Ada"]


def test_an_approval_for_the_conversation_holds_in_later_turns(client, alice):
    conversation = start(alice, "test-approval")
    send(client, conversation, "/tmp/a")
    answer(client, pending(conversation), scope="conversation")
    send(client, conversation, "/tmp/a")
    assert said(conversation) == [
        "Deleted.",
        "Approved earlier in this conversation: Delete the file?",
        "Deleted.",
    ]
    assert Part.objects.filter(conversation=conversation).count() == 1
    note = Message.objects.get(role=Message.Role.NOTE)
    assert 'class="bubble agent note"' in client.get(conversation.get_absolute_url()).text
    assert note.turn.index == 1


def test_an_approval_once_is_asked_again_and_only_for_the_same_action(client, alice):
    conversation = start(alice, "test-approval")
    send(client, conversation, "/tmp/a")
    answer(client, pending(conversation), scope="once")
    send(client, conversation, "/tmp/a")
    assert pending(conversation).turn.index == 1
    answer(client, pending(conversation), scope="conversation")
    send(client, conversation, "/tmp/b")  # different arguments: a different action
    assert pending(conversation).turn.index == 2


def test_a_class_based_agent_runs(client, alice):
    conversation = start(alice, "test-class")
    send(client, conversation, "ping")
    assert said(conversation) == ["class agent heard: ping"]


def test_a_replay_that_asks_something_else_fails_with_a_clear_error(client, alice):
    conversation = start(alice, "test-nondeterministic")
    send(client, conversation, "go")
    answer(client, pending(conversation), name="Ada")
    assert Turn.objects.get().status == Turn.Status.FAILED
    assert "ReplayDivergedError: On replay, call 0 of this turn asked" in said(conversation)[-1]

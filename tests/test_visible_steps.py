"""An agent's steps show in the chat: pushed to open tabs as each starts and again as it ends,
the same after a reload (from the step's record) and in the admin's transcript. Collapsed,
plain text, and never with a secret in them."""

import asyncio
import html
import re

import pytest

from playground.runs.models import Step, Turn
from playground.runs.tasks import execute_turn
from tests.support import runtime_agents
from tests.support.admin_support import chat_client, frames, make_staff
from tests.support.llm_support import call, logged_in, scripted  # noqa: F401
from tests.support.mcp_support import stdio_servers_file
from tests.support.runtime_agents import CARD_KEY
from tests.support.runtime_helpers import agent_row, answer, open_tab, pending, said, send, start

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("logged_in")]


def steps_shown(page: str) -> list[dict]:
    """Return the steps a page (or a push) shows, in order: id, state, open, and their text."""
    found = re.findall(
        r'<details id="(step-[\d-]+)" class="step[^"]*" data-state="([^"]+)"'
        r"([^>]*)>(.*?)</details>",
        page,
        re.S,
    )
    return [
        {
            "id": dom_id,
            "state": state,
            "open": "open" in attributes,
            "text": " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split()),
        }
        for dom_id, state, attributes, body in found
    ]


def pushed_steps(pushes: list[str]) -> list[tuple[str, str]]:
    return [(step["id"], step["state"]) for push in pushes for step in steps_shown(push)]


def test_a_built_in_agents_step_shows_as_it_runs_and_after_a_reload(client, alice, seeded):
    conversation = start(alice, "deploy-assistant")
    tab = open_tab(conversation.pk)
    send(client, conversation, "Deploy v1.4.2 to staging")
    answer(client, pending(conversation), environment="staging", version="v1.4.2")
    answer(client, pending(conversation), scope="once")
    assert said(conversation)[-1].startswith("Deployed **v1.4.2** to **Staging**")

    step = Step.objects.get(name="deploy")
    # One push as it starts (running), one as it ends: no more.
    assert pushed_steps(tab()) == [(step.dom_id, "step-running"), (step.dom_id, "step-done")]
    page = client.get(f"/c/{conversation.pk}/").content.decode()
    [shown] = steps_shown(page)
    assert shown["id"] == step.dom_id and not shown["open"]  # collapsed until opened
    assert shown["text"].startswith("deploy done · ")
    assert 'environment: "staging", version: "v1.4.2"' in shown["text"]
    assert step.result["deployment"] in shown["text"]
    # In its turn's order: after the approval card, before the reply.
    assert page.index('class="part part--submitted part--approval') < page.index(step.dom_id)
    assert page.index(step.dom_id) < page.index("Deployed <strong>v1.4.2</strong>")


def test_a_failing_step_shows_its_error_without_the_secret(client, alice):
    conversation = start(alice, "test-steps")
    tab = open_tab(conversation.pk)
    send(client, conversation, "order-42")
    assert said(conversation) == ["The card was declined, so nothing was charged."]

    lookup, charge = Step.objects.order_by("call_index")
    assert (lookup.status, charge.status) == ("done", "failed")
    pushes = tab()
    assert pushed_steps(pushes) == [
        (lookup.dom_id, "step-running"),
        (lookup.dom_id, "step-done"),
        (charge.dom_id, "step-running"),
        (charge.dom_id, "step-failed"),
    ]
    page = client.get(f"/c/{conversation.pk}/").content.decode()
    _, failed = steps_shown(page)
    assert failed["text"].startswith("charge the card failed · ")
    assert 'order: "order-42", api_key: "[redacted]", amount: 1200' in failed["text"]
    assert "Error RuntimeError: card declined for order-42 (api_key=[redacted])" in failed["text"]
    # Nowhere: not in the record, the pushes, the page.
    assert CARD_KEY not in charge.arguments + charge.outcome
    assert all(CARD_KEY not in push for push in pushes) and CARD_KEY not in page


def test_a_step_that_ends_the_turn_shows_failed_beside_the_error(client, alice):
    conversation = start(alice, "test-steps")
    send(client, conversation, "crash")
    assert Turn.objects.get().status == Turn.Status.FAILED
    page = client.get(f"/c/{conversation.pk}/").content.decode()
    _, failed = steps_shown(page)
    assert failed["state"] == "step-failed"
    assert "card declined for crash" in failed["text"] and CARD_KEY not in page
    # Nor in the error the chat shows, or the trace the admin keeps.
    turn = Turn.objects.get()
    assert "api_key=[redacted]" in turn.error and CARD_KEY not in turn.error + turn.error_trace


def test_a_replay_runs_an_unfinished_step_again_in_the_same_record(client, alice, settings):
    settings.JOBS_RUN_IN = "workers"  # the turn waits in the queue; this test runs it
    conversation = start(alice, "test-steps")
    send(client, conversation, "order-7")
    turn = Turn.objects.get()
    # A run that died mid-step (the server stopped) left its step running: nothing recorded.
    Step.objects.create(turn=turn, call_index=0, name="look up the order", status="running")
    Turn.objects.filter(pk=turn.pk).update(status=Turn.Status.FAILED)
    page = client.get(f"/c/{conversation.pk}/").content.decode()
    [unfinished] = steps_shown(page)
    assert unfinished["state"] == "step-unfinished"
    assert "The run stopped before this step finished." in unfinished["text"]

    Turn.objects.filter(pk=turn.pk).update(status=Turn.Status.QUEUED)
    asyncio.run(execute_turn(turn.pk))
    lookup = Step.objects.get(call_index=0)
    assert (lookup.status, lookup.result) == ("done", {"order": "order-7", "total": 1200})
    assert Step.objects.count() == 2  # the lookup once, then the charge


def test_the_admin_transcript_shows_the_steps(client, alice):
    conversation = start(alice, "test-steps")
    send(client, conversation, "order-9")
    staff = chat_client(make_staff("root", superuser=True))
    response = staff.get(f"/admin/playground/conversation/{conversation.pk}/change/")
    [transcript] = frames(response)
    shown = steps_shown(transcript)
    assert [step["state"] for step in shown] == ["step-done", "step-failed"]
    assert 'api_key: "[redacted]"' in shown[1]["text"] and CARD_KEY not in transcript


@pytest.fixture
def mcp_conversation(settings, tmp_path, alice):
    settings.MCP_SERVERS_FILE = str(stdio_servers_file(tmp_path))
    agent = agent_row("test-llm")
    agent.config = {"mcp_servers": ["test"]}
    agent.save()
    return start(alice, "test-llm")


def test_an_llm_agents_model_requests_and_mcp_tool_calls_show_as_steps(client, mcp_conversation):
    tab = open_tab(mcp_conversation.pk)
    scripted([call("echo", text="hello there")], "It said hello there.")
    send(client, mcp_conversation, "say hello")
    assert said(mcp_conversation) == ["It said hello there."]

    page = client.get(f"/c/{mcp_conversation.pk}/").content.decode()
    shown = steps_shown(page)
    texts = [step["text"] for step in shown]
    assert [text.split(" · ")[0] for text in texts] == [
        "mcp: list the tools of test done",
        "model request (function::_stream) done",
        "test: echo done",
        "model request (function::_stream) done",
    ]
    assert "tools: " in texts[0] and "echo" in texts[0]
    assert 'Calls echo(text: "hello there")' in texts[1]
    assert 'Arguments text: "hello there" Outcome hello there' in texts[2]
    assert "Replied: It said hello there." in texts[3]
    # The message history the agent carries on is bookkeeping: recorded, not shown.
    assert Step.objects.filter(shown=False).count() == 2
    assert "message history" not in page
    # Two pushes a step.
    pushed = pushed_steps(tab())
    assert len(pushed) == 2 * len(shown)
    assert {state for _, state in pushed} == {"step-running", "step-done"}


def test_an_mcp_tools_error_result_shows_as_a_failed_step(client, mcp_conversation):
    scripted([call("fails")], "The disk is full, sorry.")
    send(client, mcp_conversation, "try it")
    page = client.get(f"/c/{mcp_conversation.pk}/").content.decode()
    [failed] = [step for step in steps_shown(page) if step["text"].startswith("test: fails")]
    assert failed["state"] == "step-error"
    assert "The tool reported an error: The disk is full." in failed["text"]


def test_model_text_in_a_step_is_shown_as_text(client, mcp_conversation):
    scripted([call("echo", text="<img src=x onerror=alert(1)>")], "Done.")
    send(client, mcp_conversation, "echo html")
    page = client.get(f"/c/{mcp_conversation.pk}/").content.decode()
    assert "<img src=x" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


def test_a_bookkeeping_step_is_started_run_and_recorded_in_one_hop(client, alice, hops):
    runtime_agents.HIDDEN_CALLS.clear()
    conversation = start(alice, "test-hidden-steps")
    send(client, conversation, "the fence")
    assert "_run_hidden_step" in hops and "_start_step" not in hops, hops
    hops.clear()
    answer(client, pending(conversation), name="Ada")
    # The replay returns the kept result: the first step ran once, and not again.
    assert runtime_agents.HIDDEN_CALLS == ["the fence", "fail"]
    assert said(conversation) == ["the fence: nothing to remember"]
    kept, failed = Step.objects.order_by("call_index")
    assert (kept.status, kept.result, kept.shown) == ("done", {"remembered": "the fence"}, False)
    assert (failed.status, failed.result, failed.shown) == ("failed", None, False)
    assert "ValueError: nothing to remember" in failed.outcome and failed.finished_at
    assert hops.count("_run_hidden_step") == 1 and "_finish_step" not in hops, hops

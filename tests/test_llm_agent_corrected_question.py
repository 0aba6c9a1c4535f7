"""A question the playground could not show is folded away once the agent asks again in a
way it can: on the page, and in every open tab at the moment the corrected question arrives."""

import pytest

from elicitation.models import Part
from tests.support.llm_support import call, logged_in, scripted  # noqa: F401
from tests.support.runtime_helpers import open_tab, pending, send, start

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("logged_in")]

NESTED = {"type": "object", "properties": {"a": {"type": "object", "properties": {}}}}
FLAT = {"type": "object", "properties": {"a": {"type": "string", "title": "A"}}}
NOTICE = "tried to ask something this playground cannot show"


def test_the_notice_folds_away_when_the_corrected_question_arrives(client, alice):
    scripted(
        [call("request_input", message="Which A?", requestedSchema=NESTED)],
        [call("request_input", message="Which A?", requestedSchema=FLAT)],
    )
    conversation = start(alice, "test-llm")
    tab = open_tab(conversation.pk)
    send(client, conversation, "ask me")
    degraded = Part.objects.get(state=Part.State.DEGRADED)
    assert pending(conversation).message == "Which A?"

    pushed = tab()
    first = next(html for html in pushed if f'id="part-{degraded.pk}"' in html)
    assert 'data-state="degraded"' in first and NOTICE in first
    again = [html for html in pushed[pushed.index(first) + 1 :] if f"part-{degraded.pk}" in html]
    assert len(again) == 1 and 'data-state="degraded-corrected"' in again[0]
    assert '<details class="degraded-corrected">' in again[0]

    page = client.get(f"/c/{conversation.pk}/").content.decode()
    folded = page.split(f'id="part-{degraded.pk}"')[1].split("</article>")[0]
    assert '<details class="degraded-corrected">' in folded
    assert "asked again: its first try could not be shown" in folded


def test_a_notice_the_agent_did_not_correct_stays_open(client, alice):
    scripted([call("request_input", message="Which A?", requestedSchema=NESTED)], "Never mind.")
    conversation = start(alice, "test-llm")
    send(client, conversation, "ask me")
    page = client.get(f"/c/{conversation.pk}/").content.decode()
    assert NOTICE in page and "degraded-corrected" not in page

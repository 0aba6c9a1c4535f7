"""Whatever HTML an agent puts in its text, titles, descriptions or labels is shown as text."""

from elicitation.models import Part
from playground.runs.models import Message, Turn
from tests.conftest import make_conversation, make_question

EVIL = '<script>alert("x")</script><img src=x onerror=alert(1)>'
SHOWN = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"


def test_agent_html_never_reaches_the_page_as_markup(client, alice, seeded):
    conversation = make_conversation(alice, "schema-tester")
    turn = Turn.objects.create(conversation=conversation, index=0, text=EVIL, status="waiting")
    Message.objects.create(
        turn=turn, call_index=0, text=f"{EVIL} [click](javascript:alert(1)) <b>bold</b>"
    )
    schema = {
        "type": "object",
        "title": EVIL,
        "properties": {
            "pick": {
                "type": "string",
                "title": EVIL,
                "description": EVIL,
                "oneOf": [{"const": "a", "title": EVIL, "description": EVIL}],
            },
            "many": {"type": "array", "items": {"type": "string", "enum": ["b"]}, "title": EVIL},
            "note": {"type": "string", "default": EVIL, "x-ui": {"placeholder": EVIL}},
        },
    }
    payload = {"message": EVIL, "requestedSchema": schema}
    make_question(turn, payload, call_index=1)
    Part.objects.create(
        conversation=conversation,
        turn=turn,
        call_index=2,
        tool_call_id="call_2",
        render_kind="elicitation",
        payload={"message": EVIL},
        state=Part.State.DEGRADED,
        degraded_reason=EVIL,
    )
    client.force_login(alice)

    html = client.get(conversation.get_absolute_url()).content.decode()

    assert "<script>alert" not in html and "<img src=x" not in html
    assert 'href="javascript:' not in html and "<b>bold</b>" not in html
    assert html.count(SHOWN) >= 8  # person, agent, message x2, title, field, option, reason...

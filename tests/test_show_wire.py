"""Every part in the chat can show its wire: the request as sent and as read, the envelope, when."""

import html
import json
from zoneinfo import ZoneInfo

from django.test import Client

from elicitation.models import Part
from elicitation.zones import set_zone
from playground.models import Turn
from tests.conftest import make_conversation, make_question
from tests.runtime_helpers import answer

SCHEMA = {
    "type": "object",
    "properties": {"env": {"type": "string", "format": "textarea"}},
    "required": ["env"],
}


def asked(alice) -> Part:
    turn = Turn.objects.create(
        conversation=make_conversation(alice, "schema-tester"), index=0, text="ask"
    )
    return make_question(turn, {"message": "Where to?", "requestedSchema": SCHEMA})


def wire_of(page: str) -> str:
    start = page.index('<details class="wire">')
    return html.unescape(page[start : page.index("</details>", start)])


def test_a_pending_part_shows_what_the_agent_sent_and_how_it_was_read(alice, seeded):
    part = asked(alice)
    client = Client()
    client.force_login(alice)
    wire = wire_of(client.get(part.conversation.get_absolute_url()).text)
    assert "<summary>Show wire</summary>" in wire
    assert json.dumps(part.payload, indent=2) in wire
    assert '"format": "multiline"' in wire  # the alias as the contract read it
    assert "Envelope" not in wire
    assert "<dt>Answered</dt><dd>not yet</dd>" in wire


def test_a_settled_part_shows_its_envelope_and_when_it_was_answered(alice, seeded):
    set_zone(alice, "Europe/Berlin")
    part = asked(alice)
    client = Client()
    client.force_login(alice)
    wire = wire_of(answer(client, part, env="staging\nthen production").text)
    envelope = '<pre class="wire-json" tabindex="0"><code>{\n  "action": "accept"'
    assert f"Envelope the agent received</p>{envelope}" in wire
    assert '"env": "staging\\nthen production"' in wire
    part.refresh_from_db()
    settled = part.settled_at.astimezone(ZoneInfo("Europe/Berlin"))  # in the owner's zone
    assert f'<dt>Answered</dt><dd><time datetime="{part.settled_at.isoformat()}' in wire
    assert settled.strftime("%H:%M:%S.") in wire and settled.tzname() in wire

"""Every part in the chat can show its wire: the request as sent and as read, the envelope, when."""

import html
import json
from zoneinfo import ZoneInfo

from django.test import Client

from elicitation.models import Part
from elicitation.zones import set_zone
from playground.runs.models import Turn
from tests.conftest import make_conversation, make_question
from tests.support.runtime_helpers import answer

SCHEMA = {
    "type": "object",
    "properties": {"env": {"type": "string", "format": "textarea"}},
    "required": ["env"],
}


def asked(owner) -> Part:
    turn = Turn.objects.create(
        conversation=make_conversation(owner, "schema-tester"), index=0, text="ask"
    )
    return make_question(turn, {"message": "Where to?", "requestedSchema": SCHEMA})


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def wire_of(client: Client, part: Part) -> str:
    response = client.get(f"/parts/{part.pk}/wire", HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    return html.unescape(response.text)


def test_each_question_in_the_chat_has_a_show_wire_disclosure(alice, seeded):
    part = asked(alice)
    page = logged_in(alice).get(part.conversation.get_absolute_url()).text
    assert f'<details class="wire" hx-get="/parts/{part.pk}/wire" hx-trigger="toggle once"' in page
    assert "<summary>Show wire</summary>" in page


def test_a_pending_part_shows_what_the_agent_sent_and_how_it_was_read(alice, seeded):
    part = asked(alice)
    wire = wire_of(logged_in(alice), part)
    assert json.dumps(part.payload, indent=2) in wire
    assert '"format": "multiline"' in wire  # the alias as the contract read it
    assert "Envelope" not in wire
    assert "<dt>Answered</dt><dd>not yet</dd>" in wire


def test_a_settled_part_shows_its_envelope_and_when_it_was_answered(alice, seeded):
    set_zone(alice, "Europe/Berlin")
    part = asked(alice)
    client = logged_in(alice)
    answer(client, part, env="staging\nthen production")
    wire = wire_of(client, part)
    envelope = '<pre class="wire-json" tabindex="0"><code>{\n  "action": "accept"'
    assert f"Envelope the agent received</p>{envelope}" in wire
    assert '"env": "staging\\nthen production"' in wire
    part.refresh_from_db()
    settled = part.settled_at.astimezone(ZoneInfo("Europe/Berlin"))  # in the owner's zone
    assert f'<dt>Answered</dt><dd><time datetime="{part.settled_at.isoformat()}' in wire
    assert settled.strftime("%H:%M:%S.") in wire and settled.tzname() in wire


def test_someone_elses_wire_is_not_found(alice, bob, seeded):
    part = asked(alice)
    assert logged_in(bob).get(f"/parts/{part.pk}/wire").status_code == 404

"""The schema workbench: a payload's form, diagnostics, field map and envelope, stored nowhere."""

import html
import json

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elicitation.contract import WARNING_CODES, parse_request
from elicitation.mcp_wire import degraded_error, elicitation_create
from elicitation.models import Part
from playground.chat.views import MAX_MESSAGE_CHARS
from playground.runs.models import Conversation, Turn
from playground.workbench.examples import examples
from playground.workbench.reading import MAX_DEPTH, MAX_TEXT_BYTES, locate
from tests.conftest import make_conversation
from tests.support.golden import reference_examples

HTMX = {"HTTP_HX_REQUEST": "true"}
PAYLOAD = {
    "message": "Which environment?",
    "requestedSchema": {
        "type": "object",
        "properties": {
            "env": {"type": "string", "title": "Environment", "enum": ["staging", "production"]},
            "replicas": {"type": "integer", "minimum": 1, "maximum": 9},
        },
        "required": ["env"],
    },
}
TEXT = json.dumps(PAYLOAD, indent=2)


@pytest.fixture
def client(alice) -> Client:
    client = Client()
    client.force_login(alice)
    return client


def preview(client: Client, text: str):
    return client.post("/workbench/preview", {"payload": text}, **HTMX)


def test_the_home_page_links_to_the_workbench(client, alice, seeded):
    make_conversation(alice, "schema-tester")  # past the first visit's wizard
    assert 'href="/workbench/"' in client.get("/").text


def test_it_shows_the_first_example_as_the_chat_would(client):
    page = client.get("/workbench/").text
    assert "One field of every kind this playground shows" in page
    assert 'type="datetime-local"' in page and 'class="code"' in page  # the chat's templates
    assert "Valid: 16 fields" in page


def test_every_example_in_the_menu_loads_and_is_valid(client):
    menu = examples()
    assert set(menu) == {"every-field-kind", "mcp-enum-forms"} | set(reference_examples())
    for name in menu:
        page = client.get("/workbench/", {"example": name}).text
        assert f'value="{name}" selected' in page and "Valid:" in page, name


def test_the_preview_renders_the_form_and_its_field_map(client):
    response = preview(client, TEXT)
    assert response.status_code == 200
    html = response.text
    assert 'name="answer.env"' in html and 'type="radio"' in html
    assert "<td><code>replicas</code></td><td>Number</td><td>Replicas</td>" in html
    assert "required; 2 options" in html and "optional; enter 1 to 9<" in html
    assert "Valid: 2 fields" in html
    assert Part.objects.count() == 0


def test_the_field_map_reads_its_rules_as_phrases(client):
    prop = {"type": "number", "minimum": 1, "maximum": 50, "multipleOf": 0.01, "default": 5}
    payload = {
        "message": "How many?",
        "requestedSchema": {"type": "object", "properties": {"count": prop}},
    }
    shown = html.unescape(preview(client, json.dumps(payload)).text)
    assert "<td>optional; enter 1 to 50; use at most 2 decimal places; default 5</td>" in shown


def test_malformed_json_names_line_and_column_and_keeps_the_preview(client):
    response = preview(client, '{\n  "message": "Hi",\n  "requestedSchema": {,}\n}')
    assert response.status_code == 200
    assert response.headers["HX-Reswap"] == "none"  # the last good preview stays
    assert "A property name in double quotes is expected at line 3, column 23." in response.text
    assert 'data-go-to-line="3" data-go-to-column="23"' in response.text
    assert "Showing the last payload that could be read." in response.text
    assert 'id="results"' not in response.text


def test_a_degraded_payload_shows_the_reason_and_the_agents_tool_result(client):
    payload = {
        "message": "Key?",
        "requestedSchema": {"type": "object", "properties": {"api_key": {"type": "string"}}},
    }
    text = html.unescape(preview(client, json.dumps(payload)).text)
    assert 'This client would not show it: property "api_key" asks for a secret' in text
    assert 'tool result: <code>elicitation: unsupported payload — property "api_key"' in text
    assert "part--degraded" in text  # the chat's degraded surface


def test_an_oversized_payload_is_refused_with_the_limit_named(client):
    text = json.dumps({"message": "x" * MAX_TEXT_BYTES, "requestedSchema": {}})
    refused = preview(client, text).text
    assert f"This text is {len(text):,} bytes: the workbench reads at most 128 KiB" in refused
    compact_too_big = json.dumps({**PAYLOAD, "pad": "x" * 70_000})
    assert "payload is larger than 64 KiB" in preview(client, compact_too_big).text


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 10_000])
def test_deep_nesting_is_refused_with_the_limit_named(client, depth):
    response = preview(client, "[" * depth + "]" * depth)
    assert response.status_code == 200
    assert f"nests more than {MAX_DEPTH} levels deep" in response.text


def test_submitting_the_preview_shows_the_envelope_and_stores_nothing(client):
    response = client.post(
        "/workbench/",
        {"payload": TEXT, "action": "accept", "answer.env": "staging", "answer.replicas": "3"},
        **HTMX,
    )
    assert response.status_code == 200
    assert "part--submitted" in response.text  # the chip, as in the chat
    envelope = '{\n  "action": "accept",\n  "content": {\n    "env": "staging",\n    "replicas": 3'
    assert envelope.replace('"', "&quot;") in response.text
    assert Part.objects.count() == 0 and Conversation.objects.count() == 0


def test_a_wrong_answer_comes_back_with_errors_inline_and_keeps_what_was_typed(client):
    response = client.post(
        "/workbench/",
        {"payload": TEXT, "action": "accept", "answer.env": "staging", "answer.replicas": "12"},
        **HTMX,
    )
    assert response.status_code == 422
    assert "Enter a number from 1 to 9." in response.text or "at most 9" in response.text
    assert 'value="12"' in response.text
    assert "Nothing would reach the agent yet" in response.text


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_decline_and_cancel_show_their_envelopes(client, action):
    response = client.post("/workbench/", {"payload": TEXT, "action": action}, **HTMX)
    assert f"&quot;action&quot;: &quot;{action}&quot;" in response.text
    state = {"decline": "declined", "cancel": "cancelled"}[action]
    assert f'data-state="{state}"' in response.text  # the chat's chip


def test_an_answer_typed_as_json_goes_through_the_same_validation(client):
    good = client.post(
        "/workbench/answer", {"payload": TEXT, "content": '{"env": "production", "replicas": 2}'}
    )
    assert good.status_code == 200 and "&quot;replicas&quot;: 2" in good.text
    bad = client.post("/workbench/answer", {"payload": TEXT, "content": '{"replicas": "two"}'})
    assert bad.status_code == 422
    assert "Environment (env)</strong>: This field is required." in bad.text
    assert "Replicas (replicas)</strong>:" in bad.text
    not_json = client.post("/workbench/answer", {"payload": TEXT, "content": "{env: 1}"})
    assert not_json.status_code == 422
    assert "A property name in double quotes is expected at line 1, column 2." in not_json.text


def test_ask_in_a_chat_starts_a_schema_tester_conversation_with_the_payload(client, seeded):
    response = client.post("/workbench/chat", {"payload": TEXT})
    conversation = Conversation.objects.get()
    assert response.url == conversation.get_absolute_url()
    assert conversation.agent.slug == "schema-tester"
    assert conversation.title == "Which environment?"
    assert Turn.objects.get(conversation=conversation).text == TEXT


def test_a_long_payload_is_asked_in_the_chat_as_compact_json(client, seeded):
    options = [f"option number {n}" for n in range(400)]
    schema = {"type": "object", "properties": {"pick": {"type": "string", "enum": options}}}
    text = json.dumps({"message": "Which?", "requestedSchema": schema}, indent=8)
    assert len(text) > MAX_MESSAGE_CHARS > len(json.dumps(json.loads(text)))
    client.post("/workbench/chat", {"payload": text})
    assert json.loads(Turn.objects.get().text)["requestedSchema"] == schema


def test_ask_in_a_chat_refuses_what_is_not_json_and_keeps_the_text(client, seeded):
    response = client.post("/workbench/chat", {"payload": "{oops"})
    assert response.status_code == 422
    assert "{oops</textarea>" in response.text
    assert "A property name in double quotes is expected at line 1, column 2." in response.text
    assert Conversation.objects.count() == 0


def test_someone_logged_out_is_sent_to_log_in(db):
    assert Client().get("/workbench/").status_code == 302


# One property per warning the contract gives, and the sentence the workbench shows for it.
WARNINGS = {
    "ignored-keyword": (
        {"type": "integer", "title": "N", "readOnly": True},
        '"readOnly" is not part of the form dialect and is ignored',
        "/requestedSchema/properties/timeOfDay/readOnly",
    ),
    "unknown-format": (
        {"type": "string", "title": "H", "format": "hostname"},
        'format "hostname" is not known and is dropped; the field is plain text',
        "/requestedSchema/properties/timeOfDay/format",
    ),
    "format-alias": (
        {"type": "string", "title": "T", "format": "textarea"},
        'format "textarea" is read as "multiline"',
        "/requestedSchema/properties/timeOfDay/format",
    ),
    "unknown-widget": (
        {"type": "string", "title": "W", "x-ui": {"widget": "slider"}},
        'x-ui widget "slider" is not known; the field is plain text',
        "/requestedSchema/properties/timeOfDay/x-ui/widget",
    ),
    "humanized-label": (
        {"type": "string"},
        '"timeOfDay" has no title and shows as "Time of day"',
        "/requestedSchema/properties/timeOfDay",
    ),
    "nullable-optional": (
        {"title": "O", "anyOf": [{"type": "string"}, {"type": "null"}]},
        'anyOf allows null, so the field is read as optional "string"',
        "/requestedSchema/properties/timeOfDay/anyOf",
    ),
    "type-assumed": (
        {"title": "E", "enum": ["a", "b"]},
        'no type is given, so the select is read as "string"',
        "/requestedSchema/properties/timeOfDay",
    ),
    "unanswerable": (
        {"type": "integer", "title": "N", "minimum": 1.5, "maximum": 1.7},
        '"timeOfDay" cannot be answered (no whole number is from 1.5 to 1.7), '
        "so it can only be left empty",
        "/requestedSchema/properties/timeOfDay/minimum",
    ),
}


def test_every_warning_kind_the_contract_gives_is_covered_here():
    assert set(WARNINGS) == set(WARNING_CODES)


@pytest.mark.parametrize("code", sorted(WARNINGS))
def test_each_warning_is_listed_under_the_editor_with_its_pointer(client, code):
    prop, text, pointer = WARNINGS[code]
    payload = {
        "message": "When?",
        "requestedSchema": {"type": "object", "properties": {"timeOfDay": prop}},
    }
    shown = html.unescape(preview(client, json.dumps(payload)).text)
    assert "1 thing this client accepts but ignores or changes:" in shown
    button = '<button type="button" class="link-button pointer"'
    assert f'<li data-code="{code}">{text} {button}' in shown
    assert f'aria-label="Go to {pointer}, line 1"><code>{pointer}</code></button></li>' in shown


def test_a_degraded_payload_points_at_the_offending_place(client):
    payload = {
        "message": "Age?",
        "requestedSchema": {
            "type": "object",
            "properties": {"age": {"type": "integer", "minimum": 9, "maximum": 1}},
        },
    }
    shown = html.unescape(preview(client, json.dumps(payload)).text)
    assert "This client would not show it: property" in shown
    assert 'aria-label="Go to /requestedSchema/properties/age' in shown


def test_a_pointer_is_found_where_its_key_is_written():
    text = json.dumps(
        {
            "message": "Age?",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "limit": {"type": "integer", "minimum": 1},
                    "age": {"type": "integer", "minimum": 9, "maximum": 1},
                },
                "required": ["limit", "age"],
            },
        },
        indent=2,
    )
    lines = text.split("\n")
    line, column = locate(text, "/requestedSchema/properties/age/minimum")
    assert lines[line - 1][column - 1 :] == '"minimum": 9,'
    line, column = locate(text, "/requestedSchema/required/1")  # the array's key
    assert lines[line - 1][column - 1 :] == '"required": ['
    assert locate(text, "/requestedSchema/properties/missing") is None
    assert locate(text, "") is None  # the whole payload: nowhere in particular


def test_the_mcp_wire_shows_the_request_and_the_result_a_client_answers(client):
    shown = html.unescape(preview(client, TEXT).text)
    request = json.dumps(
        elicitation_create(PAYLOAD["message"], PAYLOAD["requestedSchema"]), indent=2
    )
    assert request in shown
    answered = client.post(
        "/workbench/", {"payload": TEXT, "action": "accept", "answer.env": "production"}, **HTMX
    )
    result = json.dumps({"action": "accept", "content": {"env": "production"}}, indent=2)
    assert f'<pre class="code-block mcp-result" tabindex="0"><code>{result}' in html.unescape(
        answered.text
    )


def test_a_degraded_payload_is_answered_on_the_mcp_wire_with_an_error(client):
    payload = {"message": "Hi", "requestedSchema": {"type": "array"}}
    shown = html.unescape(preview(client, json.dumps(payload)).text)
    reason = parse_request(payload).reason
    assert json.dumps(degraded_error(reason, 1), indent=2, ensure_ascii=False) in shown


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)
near_payloads = st.builds(
    lambda message, schema: json.dumps({"message": message, "requestedSchema": schema}),
    json_values,
    st.dictionaries(st.sampled_from(["type", "properties", "required", "title"]), json_values),
)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=st.text(max_size=200) | near_payloads)
def test_whatever_is_typed_gets_a_preview_or_a_reason_never_an_error(alice, text):
    client = Client()
    client.force_login(alice)
    response = preview(client, text)
    assert response.status_code == 200
    assert "Valid:" in response.text or 'class="error"' in response.text

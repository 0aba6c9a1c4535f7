"""Every reference schema shape becomes the form control a person expects (no database)."""

import re
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth.models import User

from elicitation.contract import ElicitationRequest, parse_request
from elicitation.models import Part, PersonZone
from elicitation.rendering import render_part_html
from elicitation.widgets import AnswerRow, answer_rows, build_widgets
from playground.runs.models import Agent, Conversation
from tests.support.golden import reference_examples

EXAMPLES = reference_examples()
UTC = ZoneInfo("UTC")
BERLIN = ZoneInfo("Europe/Berlin")


def _request(schema: dict, message: str = "Tell me") -> ElicitationRequest:
    request = parse_request({"message": message, "requestedSchema": schema})
    assert isinstance(request, ElicitationRequest), request
    return request


def _part(request: ElicitationRequest, **fields) -> Part:
    owner = User(pk=1, username="alice")
    owner.time_zone = PersonZone(name="UTC")  # known, so no query for it
    conversation = Conversation(pk=3, agent=Agent(name="Schema tester"), owner=owner)
    defaults = {
        "pk": 7,
        "conversation": conversation,
        "render_kind": "elicitation",
        "payload": {"message": request.message},
        "normalized": request.to_dict(),
        "allowed_actions": ["accept", "decline", "cancel"],
    }
    return Part(**(defaults | fields))


def widgets_of(name: str) -> dict:
    example = EXAMPLES[name]
    request = _request(example["requestedSchema"], example["message"])
    return {w.field.name: w for w in build_widgets(_part(request), request, zone=UTC)}


def html_of(schema: dict, **fields) -> str:
    request = _request(schema)
    return render_part_html(_part(request, **fields))


def test_every_reference_example_is_mapped_below():
    assert set(EXAMPLES) == {
        "single_required_string",
        "contact_form",
        "alternative_date",
        "contact_with_plan",
        "enum_variants",
        "everything_server_all_types",
        "registration_lengths_enumnames",
        "nullable_anyof_legacy_server",
        "confirmation_only",
    }


def test_a_single_required_string_is_a_required_text_input_labelled_from_its_name():
    name = widgets_of("single_required_string")["name"]
    assert (name.control, name.field.label, name.field.required) == ("text", "Name", True)


def test_the_contact_form_has_an_email_input_and_a_number_with_its_minimum():
    widgets = widgets_of("contact_form")
    assert widgets["email"].control == "email"
    assert (widgets["age"].control, widgets["age"].step, widgets["age"].hint) == (
        "number",
        "any",
        "Enter at least 18.",
    )
    assert widgets["name"].described_by == "part-7-name-help"
    assert not widgets["age"].field.required


def test_alternative_date_is_a_checkbox_and_a_text_field_seeded_with_its_default():
    widgets = widgets_of("alternative_date")
    assert widgets["accept_alternative"].control == "checkbox"
    assert widgets["accept_alternative"].field.label == "Accept Alternative"
    assert widgets["accept_alternative"].value is False
    assert (widgets["date"].control, widgets["date"].value) == ("text", "2025-12-26")


def test_contact_with_plan_has_a_whole_number_input_and_radios_with_the_default_chosen():
    widgets = widgets_of("contact_with_plan")
    assert (widgets["age"].control, widgets["age"].step) == ("number", "1")
    assert widgets["plan"].control == "radio"
    assert [(c.label, c.checked) for c in widgets["plan"].choices] == [
        ("free", True),
        ("pro", False),
    ]


def test_enum_variants_show_titles_and_enum_names_as_labels():
    widgets = widgets_of("enum_variants")
    assert widgets["user_name"].field.label == "User name"
    assert [c.label for c in widgets["favorite_color"].choices] == ["Red", "Green", "Blue"]
    assert [c.label for c in widgets["color"].choices] == ["Red", "Green", "Blue"]
    colors = widgets["favorite_colors"]
    assert colors.control == "checkboxes"
    assert [c.value for c in colors.choices if c.checked] == ["red"]
    assert colors.hint == "Choose at least 1."  # its maximum (2) is every option


def test_the_everything_server_form_uses_a_native_control_for_every_type():
    widgets = widgets_of("everything_server_all_types")
    controls = {name: widget.control for name, widget in widgets.items()}
    assert controls == {
        "name": "text",
        "check": "yesno",
        "firstLine": "text",
        "email": "email",
        "homepage": "url",
        "birthdate": "date",
        "integer": "number",
        "number": "number",
        "untitledSingleSelectEnum": "radio",
        "untitledMultipleSelectEnum": "checkboxes",
        "titledSingleSelectEnum": "radio",
        "titledMultipleSelectEnum": "checkboxes",
        "legacyTitledEnum": "radio",
    }
    assert widgets["name"].field.label == "String"
    assert widgets["firstLine"].field.label == "First line"
    assert widgets["firstLine"].value == "It was a dark and stormy night."
    assert (widgets["integer"].value, widgets["integer"].hint) == ("42", "Enter 1 to 100.")
    assert widgets["number"].value == "3.14"
    assert widgets["untitledMultipleSelectEnum"].value == ["Guitar"]
    chosen = [c.label for c in widgets["titledSingleSelectEnum"].choices if c.checked]
    assert chosen == ["Superman"]
    assert [c.label for c in widgets["legacyTitledEnum"].choices] == ["Cats", "Dogs"]


def test_registration_lengths_become_a_hint_and_a_maxlength():
    widgets = widgets_of("registration_lengths_enumnames")
    assert widgets["username"].hint == "Use 3 to 20 characters."
    assert [c.label for c in widgets["plan"].choices] == ["Free tier", "Pro", "Team"]
    html = html_of(EXAMPLES["registration_lengths_enumnames"]["requestedSchema"])
    assert 'maxlength="20"' in html


def test_nullable_fields_from_older_servers_are_optional_and_keep_their_type():
    widgets = widgets_of("nullable_anyof_legacy_server")
    assert (widgets["age"].control, widgets["age"].step) == ("number", "1")
    assert not widgets["age"].field.required
    assert (widgets["subscribe"].control, widgets["subscribe"].value) == ("checkbox", False)


def test_an_empty_schema_is_a_confirmation_with_only_the_three_buttons():
    html = html_of(EXAMPLES["confirmation_only"]["requestedSchema"])
    assert 'name="answer.' not in html
    for button in ('value="accept"', 'value="decline"', 'value="cancel"'):
        assert button in html


def test_dates_times_long_text_and_code_get_their_own_controls():
    schema = {
        "type": "object",
        "properties": {
            "when": {"type": "string", "format": "datetime", "default": "2025-12-26T14:30:00Z"},
            "summer": {"type": "string", "format": "date-time", "default": "2031-07-17T07:45:30Z"},
            "notes": {"type": "string", "format": "long-text", "x-ui": {"placeholder": "Notes"}},
            "story": {"type": "string", "x-ui": {"widget": "textarea"}},
            "snippet": {"type": "string", "x-ui": {"widget": "code"}},
            "time_of_day": {"type": "string"},
        },
    }
    request = _request(schema)
    widgets = {w.field.name: w for w in build_widgets(_part(request), request, zone=BERLIN)}
    assert widgets["when"].control == "datetime-local"
    # In the owner's zone with that date's offset, seconds kept when the default has them.
    assert widgets["when"].value == "2025-12-26T15:30"
    assert widgets["summer"].value == "2031-07-17T09:45:30"
    assert widgets["when"].hint == "In Europe/Berlin time."
    assert widgets["notes"].control == widgets["story"].control == "textarea"
    assert widgets["snippet"].control == "code"
    assert widgets["time_of_day"].field.label == "Time of day"
    html = render_part_html(_part(request))
    assert 'placeholder="Notes"' in html
    assert 'class="code" spellcheck="false"' in html
    assert 'type="datetime-local" value="2025-12-26T14:30" step="60"' in html  # UTC here
    assert 'type="datetime-local" value="2031-07-17T07:45:30" step="1"' in html


def test_more_than_five_options_is_a_select_and_more_than_eight_a_multi_select():
    six = [f"option-{n}" for n in range(6)]
    nine = [f"option-{n}" for n in range(9)]
    schema = {
        "type": "object",
        "properties": {
            "five": {"type": "string", "enum": six[:5]},
            "six": {"type": "string", "enum": six},
            "eight": {"type": "array", "items": {"type": "string", "enum": nine[:8]}},
            "nine": {"type": "array", "items": {"type": "string", "enum": nine}, "maxItems": 2},
        },
        "required": ["six"],
    }
    request = _request(schema)
    controls = {w.field.name: w.control for w in build_widgets(_part(request), request, zone=UTC)}
    assert controls == {
        "five": "radio",
        "six": "select",
        "eight": "checkboxes",
        "nine": "multiselect",
    }
    html = render_part_html(_part(request))
    assert '<option value="">Choose…</option>' in html
    assert 'multiple size="6"' in html
    assert "Choose at most 2. Hold Ctrl" in html


def test_number_limits_and_integer_steps_are_on_the_input():
    schema = {
        "type": "object",
        "properties": {
            "minutes": {"type": "integer", "minimum": 5, "maximum": 1440},
            "ratio": {"type": "number", "minimum": 0.5},
        },
    }
    html = html_of(schema)
    assert 'type="number" value="" step="1" min="5" max="1440"' in html
    assert 'type="number" value="" step="any" min="0.5"' in html


def test_a_required_boolean_sends_false_when_left_unticked():
    schema = {"type": "object", "properties": {"agree": {"type": "boolean"}}, "required": ["agree"]}
    html = html_of(schema)
    hidden = html.index('type="hidden" name="answer.agree" value="false"')
    assert hidden < html.index('type="checkbox" id="part-7-agree" name="answer.agree" value="true"')


def test_a_boolean_with_a_default_is_a_checkbox_showing_it():
    schema = {"type": "object", "properties": {"notify": {"type": "boolean", "default": True}}}
    html = html_of(schema)
    assert 'type="checkbox" id="part-7-notify" name="answer.notify" value="true" checked' in html


def test_an_optional_boolean_without_a_default_offers_no_answer():
    html = html_of({"type": "object", "properties": {"notify": {"type": "boolean"}}})
    assert 'type="checkbox"' not in html
    assert 'type="hidden" name="answer.notify"' not in html
    assert 'id="part-7-notify-0" name="answer.notify" value="true"' in html
    assert 'id="part-7-notify-1" name="answer.notify" value="false"' in html
    assert 'id="part-7-notify-2" name="answer.notify" value="" checked' in html
    labels = [html.index(f"<span>{label}</span>") for label in ("Yes", "No", "No answer")]
    assert labels == sorted(labels)


def test_descriptions_are_linked_help_and_required_fields_are_marked():
    schema = {
        "type": "object",
        "properties": {
            "env": {
                "type": "string",
                "description": "Where it runs",
                "oneOf": [{"const": "prod", "title": "Production", "description": "Real users"}],
            },
        },
        "required": ["env"],
    }
    html = html_of(schema)
    assert 'aria-describedby="part-7-env-help"' in html
    assert '<p id="part-7-env-help" class="help">Where it runs</p>' in html
    assert 'aria-describedby="part-7-env-0-help"' in html and "Real users" in html
    assert '<span class="visually-hidden">(required)</span>' in html
    assert "data-required" in html


def test_prefilled_values_win_over_defaults_and_unmentioned_fields_start_empty():
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string", "default": "Oslo"},
            "country": {"type": "string", "default": "Norway"},
            "street": {"type": "string"},
        },
    }
    request = _request(schema)
    widgets = build_widgets(_part(request, value={"city": "Bergen"}), request, zone=UTC)
    assert [w.value for w in widgets] == ["Bergen", "Norway", ""]


def test_a_prose_reply_box_appears_only_when_the_request_allows_it():
    schema = {"type": "object", "properties": {"name": {"type": "string"}}}
    assert "Or reply in your own words" not in html_of(schema)
    allowed = ["accept", "respond", "cancel"]
    html = html_of(schema, allowed_actions=allowed)
    assert "Or reply in your own words" in html and 'value="respond"' in html
    assert 'value="decline"' not in html  # not allowed here; cancel always is
    assert 'value="cancel"' in html


def test_an_approval_card_says_what_will_happen_and_offers_approve_and_deny():
    schema = {
        "type": "object",
        "properties": {"scope": {"type": "string", "enum": ["once", "conversation"]}},
    }
    payload = {
        "message": "Deploy v2 to production? This replaces what runs there now.",
        "details": {"Environment": "production", "Version": "v2"},
    }
    html = html_of(schema, render_kind="approval", intent="tool_permission", payload=payload)
    assert "Schema tester asks for your approval" in html
    assert "Deploy v2 to production? This replaces what runs there now." in html
    assert "<dt>Environment</dt><dd>production</dd>" in html
    for label in (">Approve<", ">Approve for this conversation<", ">Deny<", ">Cancel<"):
        assert label in html


def test_the_message_is_plain_text_without_links():
    schema = {"type": "object", "properties": {}}
    html = html_of(schema, payload={"message": "See https://example.com and [this](http://x)"})
    assert "<a " not in html
    assert "See https://example.com and [this](http://x)" in html


@pytest.mark.parametrize(
    ("content", "rows"),
    [
        ({"plan": "pro", "agree": True}, [AnswerRow("Plan", "Pro"), AnswerRow("Agree", "Yes")]),
        (
            {"tags": ["b", "a"], "agree": False},
            [AnswerRow("Tags", "Bee, Ant"), AnswerRow("Agree", "No")],
        ),
    ],
)
def test_answers_read_back_with_option_titles_not_raw_values(content, rows):
    schema = {
        "type": "object",
        "properties": {
            "plan": {"type": "string", "oneOf": [{"const": "pro", "title": "Pro"}]},
            "tags": {
                "type": "array",
                "items": {
                    "anyOf": [{"const": "a", "title": "Ant"}, {"const": "b", "title": "Bee"}]
                },
            },
            "agree": {"type": "boolean"},
        },
    }
    assert answer_rows(_request(schema), content, zone=UTC) == rows


def test_chips_show_answers_as_people_read_them():
    schema = {
        "type": "object",
        "properties": {
            "snippet": {"type": "string", "x-ui": {"widget": "code"}},
            "notes": {"type": "string", "format": "multiline"},
            "day": {"type": "string", "format": "date"},
            "starts": {"type": "string", "format": "date-time"},
            "ratio": {"type": "number"},
        },
    }
    code = "steps:\n  - build\n  - deploy"
    long_notes = "\n".join(f"line {n}" for n in range(10))
    content = {
        "snippet": code,
        "notes": long_notes,
        "day": "2031-07-17",
        "starts": "2031-07-17T07:45:00Z",
        "ratio": 0.25,
    }
    rows = {row.label: row for row in answer_rows(_request(schema), content, zone=BERLIN)}
    assert rows["Snippet"] == AnswerRow("Snippet", code, style="code")
    assert rows["Notes"].style == "multiline" and rows["Notes"].is_long
    assert rows["Notes"].preview == "line 0…"
    assert rows["Day"] == AnswerRow("Day", "Thu 17 Jul 2031", exact="2031-07-17")
    assert rows["Starts"].text == "Thu 17 Jul 2031, 09:45 CEST"
    assert rows["Ratio"].text == "0.25"

    request = _request(schema)
    part = _part(request, state="submitted", response={"action": "accept", "content": content})
    html = render_part_html(part)
    assert '<pre class="answer-code"><code>steps:\n  - build\n  - deploy</code></pre>' in html
    assert '<details class="answer-long"><summary>' in html and "Show all" in html
    assert '<time datetime="2031-07-17T07:45:00Z" title="2031-07-17T07:45:00Z">' in html


def test_a_part_that_is_not_stored_renders_from_its_request_alone():
    request = _request({"type": "object", "properties": {"city": {"type": "string"}}})
    html = render_part_html(_part(request, pk=None))  # a preview: no row, no address
    assert 'name="answer.city"' in html and 'hx-post=""' in html


def test_the_approval_card_says_what_deny_and_cancel_each_do():
    schema = {"type": "object", "properties": {"scope": {"type": "string", "enum": ["once"]}}}
    payload = {"message": "Deploy v2 to Production?"}
    html = html_of(schema, render_kind="approval", intent="tool_permission", payload=payload)
    deny = re.search(r'<button[^>]*value="decline"[^>]*>', html).group()
    cancel = re.search(r'<button[^>]*value="cancel"[^>]*>', html).group()
    deny_id = re.search(r'aria-describedby="([^"]+)"', deny).group(1)
    cancel_id = re.search(r'aria-describedby="([^"]+)"', cancel).group(1)
    assert re.search(f'id="{deny_id}"><strong>Deny</strong> answers no: the agent is told', html)
    assert re.search(f'id="{cancel_id}"><strong>Cancel</strong> answers nothing', html)

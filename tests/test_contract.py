"""The elicitation contract as a caller sees it: parsing, answers, envelopes (no Django)."""

import json
import math

import pytest

from elicitation.contract import (
    MAX_ANSWER_CHARS,
    MAX_MESSAGE_CHARS,
    MAX_OPTIONS,
    MAX_PAYLOAD_BYTES,
    MAX_PROPERTIES,
    AnswerResult,
    Degraded,
    ElicitationRequest,
    Field,
    Option,
    accept,
    cancel,
    decline,
    degradation_error,
    humanize,
    parse_request,
    respond,
    validate_content,
    validate_form,
)


def payload(properties=None, required=None, message="Which environment should I deploy to?"):
    schema = {"type": "object"}
    if properties is not None:
        schema["properties"] = properties
    if required is not None:
        schema["required"] = required
    return {"message": message, "requestedSchema": schema}


def parse(properties=None, required=None) -> ElicitationRequest:
    request = parse_request(payload(properties, required))
    assert isinstance(request, ElicitationRequest), request
    return request


def reason(properties=None, required=None) -> str:
    result = parse_request(payload(properties, required))
    assert isinstance(result, Degraded), result
    return result.reason


def only_field(prop: dict) -> Field:
    return parse({"x": prop}).fields[0]


STRING = {"type": "string"}


# Parsing: the payload


@pytest.mark.parametrize("junk", [None, 1, "text", [], b"x", object(), {"message": None}])
def test_it_degrades_anything_that_is_not_a_payload(junk):
    assert isinstance(parse_request(junk), Degraded)


def test_it_degrades_payloads_that_are_not_json():
    loop: dict = {"type": "object"}
    loop["self"] = loop
    result = parse_request({"message": "Hi", "requestedSchema": loop})
    assert result == Degraded("payload cannot be encoded as JSON")


def test_it_names_the_empty_message():
    assert parse_request({"message": "  ", "requestedSchema": {"type": "object"}}) == Degraded(
        "message is empty", "/message"
    )


def test_it_accepts_a_message_at_the_limit_and_refuses_one_above():
    at_limit = payload({}, message="m" * MAX_MESSAGE_CHARS)
    assert isinstance(parse_request(at_limit), ElicitationRequest)
    above = payload({}, message="m" * (MAX_MESSAGE_CHARS + 1))
    assert parse_request(above) == Degraded("message is longer than 4000 characters", "/message")


def test_it_counts_the_payload_in_utf8_bytes_of_compact_json():
    def sized(text: str) -> dict:
        return payload({"a": {"type": "string", "description": text}})

    overhead = len(json.dumps(sized(""), separators=(",", ":")).encode())
    fits = (MAX_PAYLOAD_BYTES - overhead) // 2  # "é" is two bytes in UTF-8
    assert isinstance(parse_request(sized("é" * fits)), ElicitationRequest)
    too_big = sized("é" * (fits + 1))
    assert parse_request(too_big) == Degraded("payload is larger than 64 KiB")


def test_it_requires_an_object_schema():
    result = parse_request({"message": "Hi", "requestedSchema": {"type": "array"}})
    assert result == Degraded('requestedSchema must have type "object"', "/requestedSchema/type")


def test_it_reads_missing_or_empty_properties_as_a_confirmation():
    for request in (parse(), parse({})):
        assert request.fields == ()
        assert validate_form(request, {}) == AnswerResult({}, {})


def test_it_takes_the_form_title_from_the_schema_title():
    data = payload({"a": STRING})
    data["requestedSchema"]["title"] = "Contact"
    assert parse_request(data).title == "Contact"
    data["requestedSchema"]["title"] = 5  # a keyword outside the dialect: ignored, not an error
    assert parse_request(data).title is None


def test_it_allows_50_properties_and_refuses_51():
    assert len(parse({f"p{i}": STRING for i in range(MAX_PROPERTIES)}).fields) == MAX_PROPERTIES
    many = {f"p{i}": STRING for i in range(MAX_PROPERTIES + 1)}
    assert reason(many) == "requestedSchema has more than 50 properties"


@pytest.mark.parametrize("name", ["a", "_x", "user.name", "user-name", "A9", "n" * 64])
def test_it_accepts_property_names_in_the_dialect(name):
    assert parse({name: STRING}).fields[0].name == name


@pytest.mark.parametrize("name", ["", "9lives", "first name", "n" * 65, "a\n", "café", "$ref"])
def test_it_refuses_other_property_names(name):
    assert reason({name: STRING}).startswith("property name ")


def test_it_checks_required_names():
    assert reason({"a": STRING}, required="a") == (
        "requestedSchema.required must be a list of property names"
    )
    assert reason({"a": STRING}, required=["b"]) == 'required lists "b", which is not a property'
    assert parse({"a": STRING}, required=["a"]).fields[0].required


def test_it_ignores_keywords_outside_the_dialect():
    data = payload({"a": {"type": "integer", "exclusiveMinimum": 0, "examples": [1]}})
    data["requestedSchema"].update({"$schema": "x", "additionalProperties": False, "title": "T"})
    assert isinstance(parse_request(data), ElicitationRequest)


# Parsing: fields


def test_it_reads_types_titles_and_descriptions():
    field = only_field({"type": "integer", "title": "Age", "description": "In years"})
    assert (field.type, field.label, field.title, field.description) == (
        "integer",
        "Age",
        "Age",
        "In years",
    )


@pytest.mark.parametrize(
    ("prop", "expected"),
    [
        ({"type": "object"}, 'property "x" is nested — flat dialect only'),
        ({"type": "array", "items": {"type": "object"}}, "is an array of objects"),
        ({"type": "array", "items": STRING}, "is an array without options"),
        ({"description": "no type"}, 'property "x" has no type'),
        ({"type": "date"}, 'property "x" has unsupported type "date"'),
        ({"anyOf": [STRING, {"type": "integer"}]}, "uses anyOf"),
        ({"$ref": "#/$defs/Color"}, "uses $ref"),
    ],
)
def test_it_degrades_shapes_outside_the_flat_dialect(prop, expected):
    assert expected in reason({"x": prop})


def test_it_reads_a_select_without_a_type_as_a_string():
    assert only_field({"enum": ["a", "b"]}).type == "string"
    assert only_field({"oneOf": [{"const": "a"}]}).type == "string"


def test_it_reads_every_single_select_form_into_one_option_list():
    expected = (Option("s", "Small"), Option("l", "Large"))
    enum_names = {"type": "string", "enum": ["s", "l"], "enumNames": ["Small", "Large"]}
    assert only_field(enum_names).options == expected
    one_of = [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]
    assert only_field({"type": "string", "oneOf": one_of}).options == expected
    assert only_field({"type": "string", "enum": ["s"]}).options == (Option("s", "s"),)


def test_it_keeps_option_descriptions():
    options = only_field({"oneOf": [{"const": "s", "title": "Small", "description": "One cup"}]})
    assert options.options == (Option("s", "Small", "One cup"),)


@pytest.mark.parametrize(
    "prop",
    [
        {"type": "array", "items": {"enum": ["a", "b"]}},
        {"type": "array", "items": {"type": "string", "anyOf": [{"const": "a"}, {"const": "b"}]}},
        {"type": "array", "items": {"oneOf": [{"const": "a"}, {"const": "b"}]}},
        {"type": "array", "enum": ["a", "b"]},
    ],
)
def test_it_reads_every_multi_select_form(prop):
    field = only_field(prop)
    assert (field.type, [o.value for o in field.options]) == ("array", ["a", "b"])


@pytest.mark.parametrize(
    ("prop", "expected"),
    [
        ({"type": "string", "enum": ["a", 1]}, "has option 1, which is not a string"),
        ({"type": "boolean", "enum": [True]}, "options are for strings and numbers only"),
        ({"type": "integer", "enum": ["1", "2"]}, 'has option "1", which is not a whole number'),
        ({"type": "integer", "enum": [1, 2.5]}, "has option 2.5, which is not a whole number"),
        ({"type": "number", "enum": [1, True]}, "has option true, which is not a number"),
        ({"type": "string", "enum": ["a"], "enumNames": []}, "enumNames that do not match"),
        ({"type": "string", "oneOf": [{"title": "A"}]}, 'without a "const"'),
        ({"type": "string", "enum": []}, "has no options"),
        ({"type": "string", "enum": ["a", "a"]}, 'has duplicate option "a"'),
        ({"type": "string", "enum": [" "]}, "has a blank option"),
        ({"type": "array", "items": {"enum": ["a"]}, "minItems": 2}, "needs at least 2 choices"),
        ({"type": "array", "items": {"enum": ["a"]}, "maxItems": -1}, "maxItems that is not"),
    ],
)
def test_it_degrades_broken_options(prop, expected):
    assert expected in reason({"x": prop})


def test_it_allows_500_options_and_refuses_501():
    values = [f"v{i}" for i in range(MAX_OPTIONS + 1)]
    assert len(only_field({"type": "string", "enum": values[:-1]}).options) == MAX_OPTIONS
    assert reason({"x": {"type": "string", "enum": values}}) == (
        'property "x" has more than 500 options'
    )


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("textarea", "multiline"),
        ("Multi-Line", "multiline"),
        ("multi_line", "multiline"),
        ("long-text", "multiline"),
        ("long_text", "multiline"),
        ("Long Text", "multiline"),
        ("datetime", "date-time"),
        ("date-time", "date-time"),
        ("URL", "uri"),
        ("uri", "uri"),
        ("date", "date"),
        ("email", "email"),
        ("hostname", None),
        (42, None),
    ],
)
def test_it_normalises_format_aliases_and_drops_unknown_formats(given, expected):
    assert only_field({"type": "string", "format": given}).format == expected


def test_it_reads_x_ui_widgets_and_placeholders():
    field = only_field({"type": "string", "x-ui": {"widget": "code", "placeholder": "SELECT 1"}})
    assert (field.widget, field.placeholder) == ("code", "SELECT 1")
    assert only_field({"type": "string", "x-ui": {"widget": "slider"}}).widget is None


@pytest.mark.parametrize(
    "prop",
    [
        {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]},
        {"anyOf": [{"type": "null"}, {"type": "integer", "minimum": 1}]},
        {"type": ["integer", "null"], "minimum": 1},
        {"type": ["null", "integer"], "minimum": 1},
    ],
)
def test_it_reads_nullable_forms_as_optional(prop):
    field = parse({"x": prop}, required=["x"]).fields[0]
    assert (field.type, field.required, field.minimum) == ("integer", False, 1)


def test_it_keeps_the_outer_title_of_a_nullable_property():
    any_of = [{"type": "string", "title": "Inner"}, {"type": "null"}]
    field = only_field({"anyOf": any_of, "title": "Outer"})
    assert field.title == "Outer"


@pytest.mark.parametrize(
    ("prop", "expected"),
    [
        ({"type": "number", "minimum": "1"}, 'minimum "1", which is not a finite number'),
        ({"type": "number", "maximum": math.inf}, "maximum Infinity, which is not a finite"),
        ({"type": "number", "minimum": True}, "minimum true, which is not a finite number"),
        ({"type": "number", "exclusiveMinimum": True}, "exclusiveMinimum true, which is not"),
        ({"type": "number", "multipleOf": 0}, "multipleOf 0, not above 0"),
        ({"type": "number", "exclusiveMinimum": 3, "maximum": 3}, "exclusiveMinimum not below"),
        ({"type": "integer", "minimum": 3, "exclusiveMaximum": 3}, "minimum not below"),
        ({"type": "integer", "minimum": 5, "maximum": 1}, "minimum greater than maximum"),
        ({"type": "string", "minLength": -1}, "minLength that is not a whole number"),
        ({"type": "string", "minLength": 3, "maxLength": 2}, "minLength greater than maxLength"),
        ({"type": "string", "pattern": "("}, "pattern that Python cannot compile"),
        ({"type": "string", "pattern": "a{99999999999}"}, "pattern that Python cannot compile"),
        ({"type": "string", "pattern": "(" * 5000 + ")" * 5000}, "pattern that Python cannot"),
    ],
)
def test_it_degrades_broken_limits(prop, expected):
    assert expected in reason({"x": prop})


def test_it_reads_integral_floats_as_counts():
    assert only_field({"type": "string", "maxLength": 20.0}).max_length == 20


# Parsing: defaults


@pytest.mark.parametrize(
    ("prop", "expected"),
    [
        ({"type": "integer", "default": 3.0}, 3),
        ({"type": "number", "default": 2}, 2),
        ({"type": "boolean", "default": False}, False),
        ({"type": "string", "default": "  padded  "}, "padded"),
        ({"type": "string", "default": ""}, None),
        ({"type": "string", "default": None}, None),
        ({"type": "array", "items": {"enum": ["a", "b"]}, "default": []}, None),
        ({"type": "array", "items": {"enum": ["a", "b"]}, "default": ["b"]}, ["b"]),
    ],
)
def test_it_normalises_defaults_like_answers(prop, expected):
    assert only_field(prop).default == expected


@pytest.mark.parametrize(
    ("prop", "expected"),
    [
        ({"type": "integer", "default": 3.5}, "Enter a whole number."),
        ({"type": "integer", "default": True}, "Enter a whole number."),
        ({"type": "number", "default": "1"}, "Enter a number."),
        ({"type": "boolean", "default": 1}, "Choose yes or no."),
        ({"type": "string", "enum": ["a"], "default": "b"}, "Choose one of the listed options."),
        ({"type": "array", "items": {"enum": ["a"]}, "default": ["a", "a"]}, "only once."),
        ({"type": "integer", "minimum": 18, "default": 12}, "Enter at least 18."),
        ({"type": "string", "format": "email", "default": "x"}, "Enter a valid email address."),
    ],
)
def test_it_degrades_defaults_that_are_not_valid_answers(prop, expected):
    message = reason({"x": prop})
    assert message.startswith('property "x" has default ')
    assert message.endswith(expected)


# Parsing: secrets


@pytest.mark.parametrize(
    "name",
    [
        "password",
        "db_passwd",
        "passphrase",
        "token",
        "AUTH_TOKEN",
        "githubToken",
        "apikey",
        "api_key",
        "api-key",
        "apiKey",
        "APIKey",
        "secret",
        "client_secret",
        "secrets",
        "credential",
        "credentials",
        "private_key",
        "privateKey",
        "access_key",
        "AWS_ACCESS_KEY_ID",
    ],
)
def test_it_refuses_properties_that_ask_for_secrets(name):
    assert reason({name: STRING}) == (
        f'property "{name}" asks for a secret — ask for a connection instead (request_connection: '
        "the person enters the secret in the vault's own form and the agent gets a reference), "
        "or use a URL-mode elicitation, never a form field"
    )


@pytest.mark.parametrize("title", ["API Key", "Your password", "Private key (PEM)", "Access Key"])
def test_it_refuses_secret_titles(title):
    assert "asks for a secret" in reason({"x": {"type": "string", "title": title}})


def test_it_refuses_password_formats():
    assert "asks for a secret" in reason({"code": {"type": "string", "format": " PassWord"}})


@pytest.mark.parametrize(
    "name", ["name", "email", "keyboard_layout", "max_tokens", "secretary", "author", "passport"]
)
def test_it_keeps_names_that_only_look_like_secrets(name):
    assert parse({name: STRING}).fields[0].name == name


# Labels


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("time_of_day", "Time of day"),
        ("firstLine", "First line"),
        ("user-name", "User name"),
        ("HTTPServer", "HTTP server"),
        ("userID", "User ID"),
        ("_", "_"),
    ],
)
def test_it_humanizes_names(name, label):
    assert humanize(name) == label


def test_it_labels_fields_by_title_else_by_name():
    assert only_field({"type": "string", "title": "Your name"}).label == "Your name"
    assert parse({"time_of_day": {"type": "string", "title": " "}}).fields[0].label == "Time of day"


# The normalized request


def test_it_round_trips_through_to_dict():
    request = parse(
        {
            "plan": {"oneOf": [{"const": "free", "title": "Free", "description": "No cost"}]},
            "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "default": ["a"]},
            "age": {"type": ["integer", "null"], "minimum": 18},
        },
        required=["plan"],
    )
    data = json.loads(json.dumps(request.to_dict()))
    assert ElicitationRequest.from_dict(data) == request


def test_it_builds_a_draft_2020_12_schema_for_content():
    request = parse(
        {
            "email": {"type": "string", "format": "email", "maxLength": 80},
            "notes": {"type": "string", "format": "textarea"},
            "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "minItems": 1},
        },
        required=["email"],
    )
    assert request.schema()["properties"] == {
        "email": {"type": "string", "maxLength": 80, "format": "email"},
        "notes": {"type": "string"},
        "tags": {
            "type": "array",
            "items": {"type": "string", "enum": ["a", "b"]},
            "uniqueItems": True,
            "minItems": 1,
        },
    }
    assert request.schema()["required"] == ["email"]


def test_its_defaults_are_the_declared_defaults_only():
    request = parse({"a": {"type": "boolean"}, "b": {"type": "integer", "default": 2}})
    assert request.defaults() == {"b": 2}


# Answers from a form


def test_it_reads_querydict_like_data_through_getlist():
    class QueryDictLike(dict):
        def getlist(self, key):
            return ["a", "b"] if key == "tags" else []

    request = parse({"tags": {"type": "array", "items": {"enum": ["a", "b"]}}})
    assert validate_form(request, QueryDictLike(tags="b")).content == {"tags": ["a", "b"]}


def test_it_reads_the_last_value_of_a_single_value_field():
    request = parse({"name": STRING})
    assert validate_form(request, {"name": ["first", "last"]}).content == {"name": "last"}
    assert validate_form(request, {"name": "plain string"}).content == {"name": "plain string"}


def test_it_reads_a_required_boolean_left_unticked_as_false():
    request = parse({"name": STRING, "ok": {"type": "boolean"}}, required=["name", "ok"])
    assert validate_form(request, {}) == AnswerResult(None, {"name": "This field is required."})
    assert validate_form(request, {"name": ["Ada"]}).content == {"name": "Ada", "ok": False}


def test_it_leaves_out_an_optional_boolean_nobody_answered():
    request = parse({"name": STRING, "notify": {"type": "boolean"}})
    assert validate_form(request, {"name": ["Ada"]}).content == {"name": "Ada"}
    assert validate_form(request, {"name": ["Ada"], "notify": [""]}).content == {"name": "Ada"}
    chosen_no = validate_form(request, {"name": ["Ada"], "notify": ["false"]})
    assert chosen_no.content == {"name": "Ada", "notify": False}


def test_typed_content_that_omits_a_boolean_omits_it():
    optional = parse({"notify": {"type": "boolean", "default": True}})
    assert validate_content(optional, {}).content == {}
    required = parse({"ok": {"type": "boolean"}}, required=["ok"])
    assert validate_content(required, {}).errors == {"ok": "This field is required."}
    assert validate_content(required, {"ok": False}).content == {"ok": False}


@pytest.mark.parametrize(
    ("kind", "given", "expected"),
    [
        ("integer", "42", 42),
        ("integer", " -7 ", -7),
        ("number", "3.14", 3.14),
        ("number", "10", 10),
        ("number", ".5", 0.5),
    ],
)
def test_it_coerces_numbers(kind, given, expected):
    assert validate_form(parse({"n": {"type": kind}}), {"n": [given]}).content == {"n": expected}


@pytest.mark.parametrize(
    ("kind", "given", "message"),
    [
        ("integer", "4.5", "Enter a whole number."),
        ("integer", "1_000", "Enter a whole number."),
        ("integer", "9" * 5000, "Enter a whole number."),
        ("number", "abc", "Enter a number."),
        ("number", "nan", "Enter a number."),
        ("number", "inf", "Enter a number."),
        ("number", "1e999", "Enter a number."),
        ("number", "3,14", "Enter a number."),
    ],
)
def test_it_refuses_what_is_not_a_number(kind, given, message):
    result = validate_form(parse({"n": {"type": kind}}), {"n": [given]})
    assert result == AnswerResult(None, {"n": message})


def test_it_states_the_limit_in_messages():
    request = parse(
        {
            "age": {"type": "integer", "minimum": 18},
            "name": {"type": "string", "maxLength": 20},
            "code": {"type": "string", "minLength": 1, "pattern": "^[a-z]+$"},
        }
    )
    result = validate_form(request, {"age": ["17"], "name": ["x" * 21], "code": ["ABC"]})
    assert result.errors == {
        "age": "Enter at least 18.",
        "name": "Use at most 20 characters.",
        "code": "This is not in the expected format.",
    }


def test_a_format_error_gives_the_placeholder_as_an_example_not_the_regex():
    request = parse(
        {
            "time": {
                "type": "string",
                "pattern": "^[0-2][0-9]:[0-5][0-9]$",
                "x-ui": {"placeholder": "09:00"},
            }
        }
    )
    assert validate_form(request, {"time": ["9am"]}).errors == {
        "time": "This is not in the expected format, like 09:00."
    }


def test_it_refuses_a_value_too_long_to_process():
    request = parse({"notes": {"type": "string", "format": "multiline"}})
    result = validate_form(request, {"notes": ["x" * (MAX_ANSWER_CHARS + 1)]})
    assert result.errors == {"notes": "Use at most 100,000 characters."}
    assert validate_form(request, {"notes": ["x" * MAX_ANSWER_CHARS]}).ok


def test_it_strips_single_line_text_but_keeps_multiline_text():
    request = parse({"name": STRING, "notes": {"type": "string", "format": "multiline"}})
    result = validate_form(request, {"name": ["  Ada  "], "notes": ["  a\r\n  b  "]})
    assert result.content == {"name": "Ada", "notes": "  a\n  b  "}


@pytest.mark.parametrize(
    ("given", "zone", "expected"),
    [
        ("2025-12-26T14:30", "Europe/Paris", "2025-12-26T14:30:00+01:00"),
        ("2031-07-17T09:45", "Europe/Berlin", "2031-07-17T09:45:00+02:00"),
        ("2025-12-26T14:30:15", "UTC", "2025-12-26T14:30:15+00:00"),
        ("2025-12-26T14:30:15.250", "America/New_York", "2025-12-26T14:30:15.250-05:00"),
        ("2025-12-26T14:30", "America/St_Johns", "2025-12-26T14:30:00-03:30"),
        ("2025-12-26T14:30:00+09:00", "Europe/Paris", "2025-12-26T14:30:00+09:00"),
        ("2025-12-26T14:30", "Not/AZone", "2025-12-26T14:30:00+00:00"),
        ("2025-12-26T14:30", 1.5, "2025-12-26T14:30:00+00:00"),
    ],
)
def test_it_turns_local_date_times_into_rfc3339_in_the_persons_zone(given, zone, expected):
    request = parse({"at": {"type": "string", "format": "date-time"}})
    result = validate_form(request, {"at": [given]}, zone=zone)
    assert result.content == {"at": expected}


@pytest.mark.parametrize("junk", [None, [], "form", 3, {"name": 5}, {"name": [None, 3]}])
def test_it_never_raises_on_junk_form_data(junk):
    assert isinstance(validate_form(parse({"name": STRING}), junk), AnswerResult)


# Answers as typed content


def test_it_validates_typed_content_without_coercing_strings():
    request = parse({"age": {"type": "integer"}, "ok": {"type": "boolean"}})
    assert validate_content(request, {"age": "42"}).errors == {"age": "Enter a whole number."}
    assert validate_content(request, {"age": 42.0}).content == {"age": 42}
    assert validate_content(request, {"age": 1, "ok": True, "extra": 1}).content == {
        "age": 1,
        "ok": True,
    }


@pytest.mark.parametrize("value", [math.nan, math.inf, True, "1"])
def test_it_refuses_typed_numbers_that_are_not_finite_numbers(value):
    result = validate_content(parse({"n": {"type": "number"}}), {"n": value})
    assert result.errors == {"n": "Enter a number."}


def test_it_refuses_content_that_is_not_an_object():
    assert validate_content(parse(), ["a"]) == AnswerResult(
        None, {"": "The answer must be a JSON object."}
    )


# Envelopes


def test_it_builds_envelopes():
    assert accept({"a": 1}) == {"action": "accept", "content": {"a": 1}}
    assert accept({}, "Done") == {"action": "accept", "content": {}, "humanFriendlyMessage": "Done"}
    assert decline() == {"action": "decline"}
    assert decline("No") == {"action": "decline", "humanFriendlyMessage": "No"}
    assert cancel() == {"action": "cancel"}
    assert respond("Use staging") == {"action": "respond", "text": "Use staging"}


def test_it_words_the_error_the_agent_receives():
    assert degradation_error("message is empty") == (
        "elicitation: unsupported payload \u2014 message is empty"
    )
    assert Degraded("message is empty").error_text() == degradation_error("message is empty")


@pytest.mark.parametrize("typed", ["ada@", "ada@example", "ada @example.com", "@example.com"])
def test_it_asks_for_a_whole_email_address(typed):
    request = parse({"email": {"type": "string", "format": "email"}})
    assert validate_form(request, {"email": [typed]}).errors == {
        "email": "Enter a valid email address."
    }
    assert validate_form(request, {"email": ["ada@example.com"]}).ok

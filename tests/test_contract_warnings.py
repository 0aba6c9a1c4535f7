"""The contract says what it ignored or changed, and where: warnings and degraded pointers."""

import json

import pytest

from elicitation.contract import (
    WARNING_CODES,
    Degraded,
    ElicitationRequest,
    Warning,
    parse_request,
)


def warnings_for(prop: dict, *, name: str = "x", required: bool = False) -> list[Warning]:
    schema = {"type": "object", "properties": {name: {"title": "X", **prop}}}
    if required:
        schema["required"] = [name]
    request = parse_request({"message": "Tell me", "requestedSchema": schema})
    assert isinstance(request, ElicitationRequest), request
    return list(request.warnings)


def test_a_keyword_outside_the_dialect_is_ignored_with_a_warning():
    assert warnings_for({"type": "string", "examples": ["a"]}) == [
        Warning(
            "/requestedSchema/properties/x/examples",
            "ignored-keyword",
            '"examples" is not part of the form dialect and is ignored',
        )
    ]


def test_a_keyword_of_another_type_is_ignored_with_a_warning():
    assert warnings_for({"type": "integer", "maxLength": 3}) == [
        Warning(
            "/requestedSchema/properties/x/maxLength",
            "ignored-keyword",
            '"maxLength" does not apply to a number field and is ignored',
        )
    ]


def test_annotations_that_change_nothing_pass_without_a_warning():
    assert warnings_for({"type": "string", "$comment": "internal"}) == []


def test_an_unknown_format_is_dropped_with_a_warning():
    assert warnings_for({"type": "string", "format": "phone"}) == [
        Warning(
            "/requestedSchema/properties/x/format",
            "unknown-format",
            'format "phone" is not known and is dropped; the field is plain text',
        )
    ]


def test_an_alias_is_normalised_with_a_warning():
    assert warnings_for({"type": "string", "format": "textarea"}) == [
        Warning(
            "/requestedSchema/properties/x/format",
            "format-alias",
            'format "textarea" is read as "multiline"',
        )
    ]


def test_an_unknown_widget_is_dropped_with_a_warning():
    assert warnings_for({"type": "string", "x-ui": {"widget": "slider"}}) == [
        Warning(
            "/requestedSchema/properties/x/x-ui/widget",
            "unknown-widget",
            'x-ui widget "slider" is not known; the field is plain text',
        )
    ]


def test_a_name_without_a_title_is_humanized_with_a_warning():
    schema = {"type": "object", "properties": {"timeOfDay": {"type": "string"}}}
    request = parse_request({"message": "When?", "requestedSchema": schema})

    assert request.warnings == (
        Warning(
            "/requestedSchema/properties/timeOfDay",
            "humanized-label",
            '"timeOfDay" has no title and shows as "Time of day"',
        ),
    )


def test_a_name_only_capitalised_needs_no_warning():
    schema = {"type": "object", "properties": {"email": {"type": "string"}}}

    assert parse_request({"message": "Email?", "requestedSchema": schema}).warnings == ()


def test_a_nullable_anyof_is_read_as_optional_with_a_warning():
    prop = {"anyOf": [{"type": "null"}, {"type": "integer"}], "default": None}

    assert warnings_for(prop, required=True) == [
        Warning(
            "/requestedSchema/properties/x/anyOf",
            "nullable-optional",
            'anyOf allows null, so the field is read as optional "integer" and is not required',
        )
    ]


def test_a_select_without_a_type_is_read_as_strings_with_a_warning():
    assert warnings_for({"enum": ["a", "b"]}) == [
        Warning(
            "/requestedSchema/properties/x",
            "type-assumed",
            'no type is given, so the select is read as "string"',
        )
    ]


def test_an_optional_field_no_value_satisfies_is_a_warning_and_a_required_one_degrades():
    prop = {"type": "integer", "multipleOf": 5, "minimum": 1, "maximum": 4}
    assert warnings_for(prop) == [
        Warning(
            "/requestedSchema/properties/x/multipleOf",
            "unanswerable",
            '"x" cannot be answered (no multiple of 5 is from 1 to 4), '
            "so it can only be left empty",
        )
    ]
    schema = {"type": "object", "properties": {"x": prop}, "required": ["x"]}
    degraded = parse_request({"message": "How many?", "requestedSchema": schema})
    assert degraded.reason == 'property "x" cannot be answered: no multiple of 5 is from 1 to 4'


@pytest.mark.parametrize(
    "prop",
    [
        {"type": "integer", "minimum": 1, "maximum": 1},
        {"type": "integer", "multipleOf": 5, "minimum": 1, "maximum": 5},
        {"type": "integer", "minimum": 1.5, "maximum": 2.5},
        {"type": "number", "minimum": 1.5, "maximum": 1.7},
        {"type": "number", "multipleOf": 0.5, "exclusiveMinimum": 1, "maximum": 1.5},
        {"type": "integer", "minimum": 1.5},
    ],
)
def test_a_range_with_an_answer_in_it_passes_without_a_warning(prop):
    assert warnings_for(prop) == []


def test_every_warning_code_is_tested_here():
    tested = {
        "ignored-keyword",
        "unknown-format",
        "format-alias",
        "unknown-widget",
        "humanized-label",
        "nullable-optional",
        "type-assumed",
        "unanswerable",
    }
    assert tested == set(WARNING_CODES)


def test_a_keyword_inside_a_nullable_anyof_points_into_it():
    prop = {"anyOf": [{"type": "string", "format": "tel"}, {"type": "null"}], "title": "X"}

    assert warnings_for(prop)[-1].pointer == "/requestedSchema/properties/x/anyOf/0/format"


def test_warnings_are_stored_with_the_request_and_old_rows_still_load():
    schema = {"type": "object", "properties": {"a_b": {"type": "string"}}}
    request = parse_request({"message": "Tell me", "requestedSchema": schema})
    assert request.warnings

    stored = json.loads(json.dumps(request.to_dict()))
    assert ElicitationRequest.from_dict(stored) == request

    old_row = {key: value for key, value in stored.items() if key != "warnings"}
    assert ElicitationRequest.from_dict(old_row).fields == request.fields


@pytest.mark.parametrize(
    ("schema", "pointer"),
    [
        (
            {"type": "object", "properties": {"api_key": {"type": "string"}}},
            "/requestedSchema/properties/api_key",
        ),
        (
            {"type": "object", "properties": {"a/b~c": {"type": "string"}}},
            "/requestedSchema/properties/a~1b~0c",
        ),
        (
            {
                "type": "object",
                "properties": {"n": {"anyOf": [{"type": "object"}, {"type": "null"}]}},
            },
            "/requestedSchema/properties/n/anyOf/0/type",
        ),
        (
            {"type": "object", "properties": {"c": {"oneOf": [{"const": "a"}, {"const": "a"}]}}},
            "/requestedSchema/properties/c/oneOf/1",
        ),
    ],
)
def test_a_degraded_payload_points_at_the_offending_place(schema, pointer):
    result = parse_request({"message": "Tell me", "requestedSchema": schema})

    assert isinstance(result, Degraded)
    assert result.pointer == pointer


def test_a_payload_that_is_wrong_as_a_whole_points_at_the_root():
    assert parse_request([]) == Degraded("payload must be an object", "")

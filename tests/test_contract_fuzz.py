"""Random and near-valid payloads and answers never break the contract (no Django)."""

import copy
import json
import math
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elicitation.contract import (
    AnswerResult,
    Degraded,
    ElicitationRequest,
    Field,
    parse_request,
    validate_content,
    validate_form,
)
from elicitation.secrets import redact_secrets
from tests.support.golden import GOLDEN

FIXTURES = GOLDEN
BASES = [
    json.loads(path.read_text())["payload"] for path in sorted(FIXTURES.glob("requests/*.json"))
]
KEYWORDS = [
    "type",
    "properties",
    "required",
    "items",
    "enum",
    "enumNames",
    "oneOf",
    "anyOf",
    "const",
    "title",
    "description",
    "default",
    "format",
    "pattern",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "x-ui",
    "widget",
    "placeholder",
    "message",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
]
TYPES = ["string", "number", "integer", "boolean", "array", "object", "null"]
FORMATS = ["date", "date-time", "DateTime", "email", "uri", "url", "textarea", "long text", "x"]
PATTERNS = ["^[a-z]+$", "\\d", "x", "^.{2,5}$", "("]

fuzz = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=12)
    | st.sampled_from(KEYWORDS + TYPES + FORMATS)
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(KEYWORDS) | st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.-]{0,10}", fullmatch=True)
values = st.text(min_size=1, max_size=8).filter(str.strip)
single_line = st.characters(exclude_categories=("Cs", "Cc", "Zs", "Zl", "Zp"))


def maybe(draw, prop: dict, key: str, value: object) -> None:
    if draw(st.booleans()):
        prop[key] = value


@st.composite
def properties(draw) -> dict:
    """Return a property schema that is mostly inside the dialect."""
    kind = draw(st.sampled_from(["string", "select", "number", "integer", "boolean", "array"]))
    prop: dict = {"type": "string" if kind == "select" else kind}
    low, high = sorted(draw(st.lists(st.integers(0, 12), min_size=2, max_size=2)))
    if kind == "string":
        maybe(draw, prop, "format", draw(st.sampled_from(FORMATS)))
        maybe(draw, prop, "minLength", low)
        maybe(draw, prop, "maxLength", high + 20)
        maybe(draw, prop, "pattern", draw(st.sampled_from(PATTERNS)))
        widget = draw(st.sampled_from(["textarea", "code", "slider"]))
        maybe(draw, prop, "x-ui", {"widget": widget, "placeholder": draw(st.text(max_size=8))})
        default = draw(st.text(max_size=20))
    elif kind in ("select", "array"):
        options = draw(st.lists(values, min_size=1, max_size=6, unique=True))
        style = draw(st.sampled_from(["enum", "enumNames", "oneOf", "anyOf", "top-level enum"]))
        source = prop if kind == "select" or style == "top-level enum" else {}
        if style in ("enum", "enumNames", "top-level enum"):
            source["enum"] = options
        if style == "enumNames":
            source["enumNames"] = [value.upper() for value in options]
        if style in ("oneOf", "anyOf"):
            key = "oneOf" if kind == "select" else style
            source[key] = [{"const": value, "title": value.title()} for value in options]
        if kind == "select":
            default = draw(st.sampled_from(options))
        else:
            if source is not prop:
                prop["items"] = source
            maybe(draw, prop, "minItems", min(low, len(options)))
            maybe(draw, prop, "maxItems", min(high, len(options)))
            default = draw(st.lists(st.sampled_from(options), unique=True))
    elif kind in ("number", "integer"):
        numbers = st.integers(-100, 100)
        if kind == "number":
            numbers |= st.floats(-100, 100)
        low, high = sorted(draw(st.lists(numbers, min_size=2, max_size=2)))
        bounds = draw(
            st.sampled_from(
                [
                    ("minimum", "maximum"),
                    ("exclusiveMinimum", "maximum"),
                    ("minimum", "exclusiveMaximum"),
                ]
            )
        )
        maybe(draw, prop, bounds[0], low)
        maybe(draw, prop, bounds[1], high)
        maybe(draw, prop, "multipleOf", draw(st.sampled_from([1, 2, 5, 0.5, 0.1, 0.01, 0.25])))
        default = draw(numbers)
    else:
        default = draw(st.booleans())
    maybe(draw, prop, "default", default if draw(st.integers(0, 4)) else draw(json_values))
    maybe(draw, prop, "title", draw(st.text(max_size=12)))
    maybe(draw, prop, "description", draw(st.text(max_size=12)))
    match draw(st.integers(0, 5)):
        case 0:
            prop = {"anyOf": [prop, {"type": "null"}], "default": None}
        case 1:
            prop = {**prop, "type": [prop["type"], "null"]}
    return prop


@st.composite
def payloads(draw) -> dict:
    """Return a payload built from the grammar of the dialect."""
    props = draw(st.dictionaries(names, properties(), max_size=6))
    schema: dict = {"type": "object", "properties": props}
    if props:
        schema["required"] = draw(st.lists(st.sampled_from(sorted(props)), unique=True))
    return {"message": draw(values), "requestedSchema": schema}


@st.composite
def mutated(draw, base: st.SearchStrategy) -> object:
    """Return a payload with one to three random edits somewhere inside it."""
    data = copy.deepcopy(draw(base))
    for _ in range(draw(st.integers(1, 3))):
        node = data
        while isinstance(node, dict | list) and node and draw(st.booleans()):
            key = draw(st.sampled_from(list(node) if isinstance(node, dict) else range(len(node))))
            if not isinstance(node[key], dict | list):
                break
            node = node[key]
        if isinstance(node, dict):
            key = draw(st.sampled_from(KEYWORDS) | st.sampled_from(list(node) or ["x"]))
            if key in node and draw(st.booleans()):
                del node[key]
            else:
                node[key] = draw(json_values)
        elif isinstance(node, list):
            node.append(draw(json_values))
    return data


near_valid = payloads() | mutated(st.sampled_from(BASES)) | mutated(payloads())
anything = json_values | near_valid


def requests_from(strategy: st.SearchStrategy) -> st.SearchStrategy:
    return strategy.map(parse_request).filter(lambda result: isinstance(result, ElicitationRequest))


@fuzz
@given(anything)
def test_parse_request_never_raises(payload):
    result = parse_request(payload)
    if isinstance(result, Degraded):
        assert len(result.reason.splitlines()) == 1
        assert result.error_text().startswith("elicitation: unsupported payload \u2014 ")
    else:
        stored = json.loads(json.dumps(result.to_dict()))
        assert ElicitationRequest.from_dict(stored) == result


def number_answers(field: Field) -> st.SearchStrategy | None:
    """Return valid numbers: multiples of the field's step within its bounds (any float when
    a number has no multipleOf)."""
    if field.type == "number" and field.multiple_of is None:
        return st.floats(
            field.minimum if field.exclusive_minimum is None else field.exclusive_minimum,
            field.maximum if field.exclusive_maximum is None else field.exclusive_maximum,
            exclude_min=field.exclusive_minimum is not None,
            exclude_max=field.exclusive_maximum is not None,
            allow_nan=False,
            allow_infinity=False,
        ).filter(
            lambda value: (
                (field.minimum is None or value >= field.minimum)
                and (field.maximum is None or value <= field.maximum)
            )
        )
    step = Fraction(str(field.multiple_of or 1))
    if field.type == "integer" and step.denominator != 1:
        return None
    lows = [math.ceil(Fraction(str(field.minimum)) / step)] if field.minimum is not None else []
    if field.exclusive_minimum is not None:
        lows.append(math.floor(Fraction(str(field.exclusive_minimum)) / step) + 1)
    highs = [math.floor(Fraction(str(field.maximum)) / step)] if field.maximum is not None else []
    if field.exclusive_maximum is not None:
        highs.append(math.ceil(Fraction(str(field.exclusive_maximum)) / step) - 1)
    # Bounded, so every multiple stays exact as a float.
    low, high = max(lows, default=-(10**6)), min(highs, default=10**6)
    if low > high:
        return None
    whole = field.type == "integer"
    return st.integers(low, high).map(lambda k: int(k * step) if whole else float(k * step))


def answer_values(field: Field) -> st.SearchStrategy | None:
    """Return a strategy of valid answers for a field, or None when it is hard to satisfy."""
    if field.type == "boolean":
        return st.booleans()
    if field.type == "file":
        return (
            None  # its answer is an upload's reference, made by the upload path (test_answer_files)
        )
    options = [option.value for option in field.options or ()]
    if field.type in ("integer", "number") and not options:
        return number_answers(field)
    if field.type == "array":
        low = max(1, field.min_items or 0)  # an empty choice is no answer
        high = len(options) if field.max_items is None else min(len(options), field.max_items)
        sizes = {"min_size": low, "max_size": high}
        return None if low > high else st.lists(st.sampled_from(options), unique=True, **sizes)
    if options:
        return st.sampled_from(options)
    if field.pattern is not None:
        return None
    low, high = max(1, field.min_length or 0), field.max_length
    fixed = {
        "email": "ada@example.com",
        "uri": "https://example.com/ada",
        "date": "2025-12-26",
        "date-time": "2025-12-26T14:30:00Z",
    }
    if field.format in fixed:
        value = fixed[field.format]
        return st.just(value) if low <= len(value) <= (high or len(value)) else None
    if field.format == "multiline" or field.widget is not None:
        text = st.text(single_line | st.sampled_from(" \n"), min_size=low, max_size=high)
        return text.filter(str.strip).filter(no_secret)
    return st.text(single_line, min_size=low, max_size=high).filter(no_secret)


def no_secret(text: str) -> bool:
    """Keep text redaction leaves alone (redaction has its own tests in test_secrets.py)."""
    return not redact_secrets(text)[1]


@st.composite
def valid_answers(draw, request: ElicitationRequest) -> dict | None:
    """Return content built from defaults and generated values, or None when none is feasible."""
    content = {}
    for field in request.fields:
        if field.default is not None:
            content[field.name] = field.default
        elif field.required or draw(st.booleans()):
            strategy = answer_values(field)
            if strategy is None:
                if field.required:
                    return None
                continue
            content[field.name] = draw(strategy)
    return content


def as_form(request: ElicitationRequest, content: dict) -> dict[str, list[str]]:
    form = {}
    for field in request.fields:
        value = content.get(field.name)
        if value is None:
            continue  # left out, as a form leaves out a field nobody answered
        if isinstance(value, bool):
            form[field.name] = ["on" if value else "false"]  # a box, or Yes / No
        elif isinstance(value, list):
            form[field.name] = value
        else:
            form[field.name] = [repr(value) if isinstance(value, float) else str(value)]
    return form


@fuzz
@given(st.data(), requests_from(near_valid))
def test_a_valid_answer_without_secrets_is_accepted_as_sent(data, request):
    content = data.draw(valid_answers(request))
    if content is None:
        return
    assert validate_content(request, content) == AnswerResult(content, {})
    assert validate_form(request, as_form(request, content)) == AnswerResult(content, {})


form_values = st.lists(st.text(max_size=20), max_size=3) | st.text(max_size=20) | json_values


@fuzz
@given(st.data(), requests_from(near_valid))
def test_validators_never_raise(data, request):
    keys = st.sampled_from([field.name for field in request.fields] or ["x"]) | st.text()
    form = data.draw(st.dictionaries(keys, form_values, max_size=8) | json_values)
    zone = data.draw(st.sampled_from(["UTC", "Europe/Berlin", "Asia/Kolkata"]) | st.text())
    for result in (
        validate_form(request, form, zone=zone),
        validate_content(request, data.draw(st.dictionaries(keys, json_values) | json_values)),
    ):
        assert (result.content is None) == bool(result.errors)
        assert all(isinstance(message, str) and message for message in result.errors.values())

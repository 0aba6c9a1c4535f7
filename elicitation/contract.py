"""The elicitation contract: read `request_input` payloads, check answers, build envelopes.

Pure Python (no Django), so any client can use it; the golden fixtures in
`elicitation/golden/` pin the same behaviour for clients written in other languages.

- `parse_request(payload)` reads the tool arguments `{message, requestedSchema}` into an
  `ElicitationRequest` (flat fields, options in one list, aliases normalised), or returns
  `Degraded` with a one-line reason naming the offending property and the JSON pointer of the
  offending place. It never raises. An accepted request lists `warnings`: what the contract
  ignored or changed (ignored keywords, dropped formats, aliases, humanized names, ...), each
  with its JSON pointer, one of `WARNING_CODES` and a sentence.
- `validate_form` (raw HTML form values) and `validate_content` (typed JSON) check an answer
  against the request and return an `AnswerResult`: the content to send, or messages a person
  can act on, keyed by property name ("" for the whole form). They never raise.
- Valid content has secret-looking values in its text fields replaced by "[redacted]"
  (`elicitation.secrets`), and `AnswerResult.redacted` names those fields.
- `accept`, `decline`, `cancel` and `respond` build the envelopes the agent receives; `accept`
  and `respond` say `"redacted": [...]` beside what had a secret removed.

Choices this module makes:
- An integral float (3.0) for an integer, as a default or an answer, is read as the int 3.
- A field no value can satisfy (no whole number from 1.5 to 1.7, no multiple of 5 from 1 to
  4, a maxLength or maxItems of 0) degrades the payload when it is required, so the agent
  learns at once instead of the person being stuck at Submit; an optional one can still be
  left empty and gets an `unanswerable` warning.
- A default must itself be a valid answer (type, options, limits, pattern, format); otherwise
  the payload is degraded, so the agent learns of the mistake at once instead of the person at
  submit. `null`, "" and [] defaults mean "no default".
- Single-line text is stripped of surrounding whitespace; multiline and code fields keep theirs
  (with CRLF turned into LF); select values are matched exactly.
- An empty answer ("", whitespace only, no choices, null) is left out of content, or is
  "This field is required." when required. Booleans too: nothing is answered for the person.
  An optional boolean without a default is shown as Yes / No / No answer, and left out of
  content when nothing is chosen; typed content that omits a boolean omits it (a required one
  is then "This field is required."). A required boolean, and one with a default, is a
  checkbox the person sees ticked or not: its form value is false when unticked (the form
  sends "false", or nothing, for it), so a required boolean is satisfied by false. A default
  fills only the form a person sees prefilled, never an answer.
- A single-value form field reads the last submitted value, like `QueryDict.get`.
- A date-time picker's local value ("2031-07-17T09:45") is read in the person's IANA zone with
  that zone's offset on that date; a local time the clocks skip or pass twice is an error
  naming the zone. RFC 3339 text with its own offset is kept as sent.
- `multipleOf` is checked exactly on the numbers' decimal text (0.3 is a multiple of 0.1,
  19.99 of 0.01), where jsonschema's float check would refuse both.
- A single select may have integer or number options (`enum: [1, 2, 3]` on an integer, as
  the MCP SDK sends for `Literal[1, 2, 3]`); the answer is the number. An option whose value
  is not of the field's type ("1" on an integer) degrades the payload.
- A payload with `mode: "url"` is not a form: the URL card shows it.
- The payload limit counts the UTF-8 bytes of the payload's compact JSON encoding.
- Keywords outside the dialect (`examples`, `const`, ...) are ignored with a warning, as are
  keywords of another type (`minLength` on an integer); `$schema`, `$id` and `$comment` change
  nothing a person sees and pass without one.
- Secrets are spotted in names and titles by words: "max_tokens" (a count) and "secretary" pass,
  "authToken", "client_secret", "API Key" and "private_key" do not.
- Secrets in answers are redacted after validation, so a pattern or length is checked against
  what the person typed; the agent may receive "[redacted]" where the pattern wanted a token.
  Only single-line and multiline text is redacted: code fields keep `key: value` lines (YAML,
  config) as typed, and dates, emails, web addresses and options are not prose.

Files. A file field is a string with `format: "data-url"` (as rjsf names it) or with
`contentMediaType`; several files are an array whose `items` is such a string:

    {"type": "string", "format": "data-url", "title": "Failing log",
     "x-ui": {"accept": ["text/plain", "application/gzip"], "maxSize": 5000000}}
    {"type": "array", "items": {"type": "string", "contentMediaType": "image/png"},
     "minItems": 1, "x-ui": {"maxFiles": 3}}

- `x-ui.accept` lists MIME types ("image/png") or families ("image/*"); without it a
  `contentMediaType` is the one type accepted, and without either any type is. A type is
  checked against the file's content, never its name; text types (`text/*`,
  `application/json`) accept UTF-8 text, which is stored as `text/plain`. `image/svg+xml` is
  refused (it can carry scripts). `x-ui.maxSize` is bytes (default 10 MB, at most 50 MB);
  `x-ui.maxFiles` (or `maxItems`, the smaller wins) caps a multi-file field (default and
  ceiling 10). A file field has no default.
- The normalized field has `type: "file"`, `accept`, `max_size`, and for several files
  `multiple: true` with `min_items` / `max_items`.
- The answer is never the file's bytes: the client stores the file and sends a reference,
  `{"file": "<id>", "name", "size", "type", "sha256"}` (a list of them for several files), as
  the field's value in content. `validate_form(..., files=...)` takes those descriptions (made
  by the client from what it stored; form values for a file field are ignored),
  `validate_content` checks their shape. `file_problem` says what is wrong with one file
  (empty, too large, a type not accepted) before it is stored.
- `parse_request(payload, files=False)` is for clients that cannot carry a file (an MCP
  server: MCP has no file field): a file field degrades the payload with the reason.
"""

import copy
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields, replace
from fractions import Fraction
from typing import Any, Self
from zoneinfo import ZoneInfo

from jsonschema import Draft202012Validator, ValidationError, validators

from elicitation.local_time import LocalTimeError, from_local, zone_named
from elicitation.secrets import is_secret_name, redact_secrets

__all__ = [
    "DEFAULT_FILE_BYTES",
    "FIELD_TYPES",
    "MAX_ANSWER_CHARS",
    "MAX_FILES",
    "MAX_FILE_BYTES",
    "MAX_MESSAGE_CHARS",
    "MAX_OPTIONS",
    "MAX_PAYLOAD_BYTES",
    "MAX_PROPERTIES",
    "PROPERTY_NAME_RE",
    "WARNING_CODES",
    "WIDGETS",
    "AnswerResult",
    "Degraded",
    "ElicitationRequest",
    "Field",
    "Option",
    "Warning",
    "accept",
    "cancel",
    "decline",
    "degradation_error",
    "file_problem",
    "humanize",
    "multiple_of_message",
    "parse_request",
    "respond",
    "validate_content",
    "validate_form",
]

MAX_PROPERTIES = 50
MAX_MESSAGE_CHARS = 4000
MAX_OPTIONS = 500
MAX_PAYLOAD_BYTES = 65536
MAX_ANSWER_CHARS = 100_000
PROPERTY_NAME_RE = r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$"
DEFAULT_FILE_BYTES = 10_000_000
MAX_FILE_BYTES = 50_000_000
MAX_FILES = 10
FILE_KEYS = ("file", "name", "size", "type", "sha256")  # what a file answer is

FIELD_TYPES = ("string", "number", "integer", "boolean", "array")
_OPTION_TYPES = ("string", "number", "integer")  # single selects; multi-selects are strings
WARNING_CODES = (
    "ignored-keyword",  # a keyword outside the dialect, or of another kind of field
    "unknown-format",  # dropped: the field is plain text
    "format-alias",  # normalised: "textarea" read as "multiline"
    "unknown-widget",  # an x-ui widget other than textarea or code: plain text
    "humanized-label",  # no title: "timeOfDay" shows as "Time of day"
    "nullable-optional",  # anyOf [T, null] or type [T, "null"] read as an optional T
    "type-assumed",  # a select without a type read as a string select
    "unanswerable",  # an optional field no value can satisfy: it can only be left empty
)
WIDGETS = ("textarea", "code")

# Keys are lowercased with whitespace removed; unknown formats are dropped.
_FORMATS = {
    "date": "date",
    "date-time": "date-time",
    "datetime": "date-time",
    "email": "email",
    "uri": "uri",
    "url": "uri",
    "multiline": "multiline",
    "textarea": "multiline",
    "multi-line": "multiline",
    "multi_line": "multiline",
    "long-text": "multiline",
    "long_text": "multiline",
    "longtext": "multiline",
}
_FORMAT_MESSAGES = {
    "email": "Enter a valid email address.",
    "uri": "Enter a full web address, like https://example.com.",
    "date": "Enter a date as YYYY-MM-DD.",
    "date-time": "Enter a date and time, like 2025-12-26T14:30.",
}
# Field attribute -> JSON Schema keyword, in the order their messages should win.
_KEYWORDS = {
    "minimum": "minimum",
    "maximum": "maximum",
    "exclusive_minimum": "exclusiveMinimum",
    "exclusive_maximum": "exclusiveMaximum",
    "multiple_of": "multipleOf",
    "min_length": "minLength",
    "max_length": "maxLength",
    "pattern": "pattern",
    "min_items": "minItems",
    "max_items": "maxItems",
}

_REQUIRED = "This field is required."
_TOO_LONG = f"Use at most {MAX_ANSWER_CHARS:,} characters."
_CHOOSE = "Choose one of the listed options."
_WHOLE_NUMBER = "Enter a whole number."
_NUMBER = "Enter a number."
_YES_OR_NO = "Choose yes or no."
_TEXT = "Enter text."
_ATTACH = "Attach a file."

_NAME = re.compile(PROPERTY_NAME_RE)
_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_INTEGER_TEXT = re.compile(r"[+-]?\d+")
_NUMBER_TEXT = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_TRUE = ("on", "true", "1", "yes")
_FALSE = ("off", "false", "0", "no")


@dataclass(frozen=True)
class Option:
    value: str | int | float  # a number for an integer or number single select
    label: str
    description: str | None = None


@dataclass(frozen=True)
class Field:
    name: str
    type: str
    label: str
    title: str | None
    description: str | None
    required: bool
    format: str | None = None
    widget: str | None = None
    placeholder: str | None = None
    default: Any = None  # the JSON value (a list for multi-select); None when absent
    options: tuple[Option, ...] | None = None
    minimum: int | float | None = None
    maximum: int | float | None = None
    exclusive_minimum: int | float | None = None
    exclusive_maximum: int | float | None = None
    multiple_of: int | float | None = None  # checked exactly on the decimal text: 0.3 is 3 x 0.1
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    min_items: int | None = None
    max_items: int | None = None
    accept: tuple[str, ...] | None = None  # a file field's MIME types ("image/*"); None = any
    max_size: int | None = None  # a file field's largest file, in bytes
    multiple: bool | None = None  # True for a field of several files


@dataclass(frozen=True)
class Warning:  # the contract's own word; Python's builtin Warning is not used here
    """Something the contract accepted but ignored or changed, where, and what a person sees."""

    pointer: str  # JSON pointer into the payload, e.g. "/requestedSchema/properties/when/format"
    code: str  # one of WARNING_CODES
    text: str


@dataclass(frozen=True)
class ElicitationRequest:
    message: str
    title: str | None
    fields: tuple[Field, ...]
    warnings: tuple[Warning, ...] = ()

    def schema(self) -> dict[str, Any]:
        """Return the Draft 2020-12 JSON schema that accepted content satisfies."""
        return {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {field.name: _field_schema(field) for field in self.fields},
            "required": [field.name for field in self.fields if field.required],
            "additionalProperties": False,
        }

    def defaults(self) -> dict[str, Any]:
        """Return the content made of the declared defaults only."""
        return {
            field.name: list(field.default) if field.type == "array" else field.default
            for field in self.fields
            if field.default is not None
        }

    def to_dict(self) -> dict[str, Any]:
        """Return the normalized request as JSON data (None-valued keys left out)."""
        data = {"message": self.message, "title": self.title}
        data["fields"] = [_field_to_dict(field) for field in self.fields]
        if self.warnings:
            data["warnings"] = [asdict(warning) for warning in self.warnings]
        return _without_none(data)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        """Return the request that `to_dict` produced `data` from."""
        return cls(
            message=data["message"],
            title=data.get("title"),
            fields=tuple(_field_from_dict(field) for field in data["fields"]),
            warnings=tuple(Warning(**warning) for warning in data.get("warnings", ())),
        )


@dataclass(frozen=True)
class Degraded:
    reason: str
    pointer: str = ""  # JSON pointer of the offending place in the payload ("" = all of it)

    def error_text(self) -> str:
        """Return the tool result the agent receives for this payload."""
        return degradation_error(self.reason)


@dataclass(frozen=True)
class AnswerResult:
    content: dict[str, Any] | None
    errors: dict[str, str]
    # Text fields whose secret-looking values were replaced by "[redacted]" in content.
    redacted: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """Return whether the answer can be accepted."""
        return not self.errors


class _Unsupported(Exception):
    """Carry the one-line reason a payload is degraded, and where, out of the parser."""

    def __init__(self, reason: str, pointer: str = "") -> None:
        super().__init__(reason)
        self.pointer = pointer


def parse_request(payload: object, *, files: bool = True) -> ElicitationRequest | Degraded:
    """Return the request a `request_input` payload describes, or why it cannot be shown.

    With `files=False` (a client that cannot carry a file, like an MCP server) a file field
    degrades the payload.
    """
    try:
        request = _parse_payload(payload)
    except _Unsupported as exc:
        return Degraded(str(exc), exc.pointer)
    for field in request.fields if not files else ():
        if field.type == "file":
            return Degraded(
                f"property {_quote(field.name)} asks for a file \N{EM DASH} MCP has no file "
                "field, so a file cannot be sent to an MCP server; ask for a link or a path "
                "instead",
                f"/requestedSchema/properties/{_escape(field.name)}",
            )
    return request


def validate_form(
    request: ElicitationRequest,
    data: Mapping[str, list[str]],
    *,
    zone: str = "UTC",
    files: Mapping[str, list[Mapping[str, Any]]] | None = None,
) -> AnswerResult:
    """Return the content raw form values make, or what the person must fix.

    `zone` is the person's IANA time zone: a date-time picker's local value gets that zone's
    offset on the picked date. A name that is not a zone is read as UTC. `files` holds, by
    field name, the descriptions of the files the client stored for a file field.
    """
    if not isinstance(data, Mapping):
        return AnswerResult(None, {"": "The form could not be read."})
    local = zone_named(zone)
    stored = files if isinstance(files, Mapping) else {}

    def read(field: Field) -> tuple[Any, str | None]:
        if field.type == "file":
            return _read_files(field, stored.get(field.name) or [])
        return _read_form(field, _form_values(data, field.name), local)

    return _redact(request, _check(request, read))


def validate_content(request: ElicitationRequest, content: object) -> AnswerResult:
    """Return the content typed JSON values make, or what must be fixed."""
    return _redact(request, _check_typed(request, content))


def accept(
    content: dict[str, Any],
    human_friendly_message: str | None = None,
    *,
    redacted: Sequence[str] = (),
) -> dict[str, Any]:
    """Return the envelope that accepts the request with `content`.

    `redacted` names the fields whose secret-looking values were removed (`AnswerResult.redacted`).
    """
    envelope = {"action": "accept", "content": content}
    if redacted:
        envelope["redacted"] = list(redacted)
    return _with_message(envelope, human_friendly_message)


def decline(human_friendly_message: str | None = None) -> dict[str, Any]:
    """Return the envelope for a person who chose not to answer."""
    return _with_message({"action": "decline"}, human_friendly_message)


def cancel() -> dict[str, Any]:
    """Return the envelope for a person who dismissed the question."""
    return {"action": "cancel"}


def respond(text: str) -> dict[str, Any]:
    """Return the envelope for a prose reply instead of the form, secret-looking values removed."""
    text, found = redact_secrets(text)
    envelope = {"action": "respond", "text": text}
    if found:
        envelope["redacted"] = ["text"]
    return envelope


def file_problem(field: Field, description: Mapping[str, Any]) -> str | None:
    """Return what is wrong with one file for a file field (empty, too large, a type not
    accepted), or None. `description` has the file's `size` in bytes and its `type` as read
    from its content."""
    size, kind = description.get("size"), description.get("type")
    if not isinstance(size, int) or isinstance(size, bool) or not isinstance(kind, str):
        return _ATTACH
    if size == 0:
        return "This file is empty."
    limit = field.max_size or DEFAULT_FILE_BYTES
    if size > limit:
        shown, most = size_text(size), size_text(limit)
        if shown == most:  # just over: rounding would say "5 MB; the limit is 5 MB"
            shown, most = f"{size:,} bytes", f"{limit:,} bytes"
        return f"This file is {shown}; the limit is {most}."
    if not accepts_type(field.accept, kind):
        wanted = " or ".join(field.accept or ())
        return f"This file's content is {kind}; choose a file of type {wanted}."
    return None


def accepts_type(accept: Sequence[str] | None, kind: str) -> bool:
    """Return whether a file whose content is of MIME type `kind` fits `accept`."""
    if accept is None:
        return True
    for wanted in accept:
        if wanted == kind or (wanted.endswith("/*") and kind.startswith(wanted[:-1])):
            return True
        if kind == "text/plain" and (wanted.startswith("text/") or wanted in _TEXT_TYPES):
            return True  # text is checked as UTF-8; its flavour is not in the bytes
    return False


def size_text(size: int) -> str:
    """Return a size in bytes as people read it: "12 bytes", "900 KB", "1.5 MB"."""
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if size >= scale:
            amount = f"{size / scale:.1f}".removesuffix(".0")
            return f"{amount} {unit}"
    return _plural(size, "byte")


def degradation_error(reason: str) -> str:
    """Return the tool result for a payload that cannot be shown."""
    return f"elicitation: unsupported payload \N{EM DASH} {reason}"


def multiple_of_message(multiple: int | float) -> str:
    """Return what a person must do for a multipleOf: "Use at most 2 decimal places." for 0.01."""
    step = Fraction(str(multiple))
    places = len(str(step.denominator)) - 1
    if step.numerator == 1 and step.denominator == 10**places and places:
        return f"Use at most {_plural(places, 'decimal place')}."
    return f"Enter a multiple of {multiple}."


def humanize(name: str) -> str:
    """Return a property name as a label: "time_of_day" and "timeOfDay" -> "Time of day"."""
    words = [
        word if len(word) > 1 and word.isupper() else word.lower() for word in _WORD.findall(name)
    ]
    if not words:
        return name
    text = " ".join(words)
    return text[0].upper() + text[1:]


# Parsing

# Keywords the dialect reads, by what the property becomes; any other is ignored with a warning.
_NUMBER_KEYWORDS = ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf")
_ANNOTATIONS = frozenset({"$schema", "$id", "$comment"})  # change nothing a person sees
_COMMON = frozenset({"type", "title", "description", "default", "x-ui"}) | _ANNOTATIONS
_OPTION_KEYS = frozenset({"enum", "enumNames", "oneOf", "anyOf"})
_KNOWN = {
    "text": _COMMON | {"minLength", "maxLength", "pattern", "format"},
    "select": _COMMON | _OPTION_KEYS,  # a number select ignores its limits: the options say it
    "number": _COMMON | set(_NUMBER_KEYWORDS),
    "boolean": _COMMON,
    "array": _COMMON | _OPTION_KEYS | {"items", "minItems", "maxItems", "uniqueItems"},
    "file": _COMMON | {"format", "contentMediaType", "contentEncoding"},
    "files": _COMMON | {"items", "minItems", "maxItems"},
}
_WHAT = {
    "text": "a text field",
    "select": "a single select",
    "number": "a number field",
    "boolean": "a yes/no field",
    "array": "a multi-select",
    "file": "a file field",
    "files": "a multi-file field",
}
_SCHEMA_KEYS = frozenset({"type", "properties", "required", "title", "additionalProperties"})
_ITEM_KEYS = frozenset({"type"}) | _OPTION_KEYS | _ANNOTATIONS
_UI_KEYS = ("widget", "placeholder")
_FILE_UI_KEYS = ("accept", "maxSize", "maxFiles")
_FILE_ITEM_KEYS = frozenset({"type", "format", "contentMediaType", "contentEncoding"})


@dataclass(frozen=True)
class _Place:
    """Where the parser is: the words a reason names it by, its JSON pointer, its warnings.

    A nullable property's own keywords sit inside `anyOf` (`inner`); keywords written beside
    the `anyOf` (`outer`) sit on the property itself.
    """

    text: str
    pointer: str
    warnings: list[Warning]  # shared by every place of one payload
    inner: str = ""
    outer: frozenset[str] = frozenset()

    def __str__(self) -> str:
        return self.text

    def at(self, *keys: str | int) -> str:
        """Return the JSON pointer of a keyword path below this place."""
        inner = self.inner if keys and keys[0] not in self.outer else ""
        return self.pointer + inner + "".join(f"/{_escape(key)}" for key in keys)

    def inside(self, text: str, *keys: str | int) -> Self:
        """Return the place of a schema below this one (an option), named by `text`."""
        return type(self)(text, self.at(*keys), self.warnings)

    def warn(self, code: str, text: str, *keys: str | int) -> None:
        self.warnings.append(Warning(self.at(*keys), code, text))


def _escape(key: str | int) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


def _parse_payload(payload: object) -> ElicitationRequest:
    if not isinstance(payload, dict):
        raise _Unsupported("payload must be an object")
    try:
        encoded = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    except (TypeError, ValueError, RecursionError):
        raise _Unsupported("payload cannot be encoded as JSON") from None
    if len(encoded) > MAX_PAYLOAD_BYTES:
        raise _Unsupported("payload is larger than 64 KiB")
    if payload.get("mode") == "url":
        raise _Unsupported("URL-mode elicitation is handled by the URL card", "/mode")
    message = payload.get("message")
    if not isinstance(message, str):
        raise _Unsupported("message must be a string", "/message")
    if not message.strip():
        raise _Unsupported("message is empty", "/message")
    if len(message) > MAX_MESSAGE_CHARS:
        raise _Unsupported(f"message is longer than {MAX_MESSAGE_CHARS} characters", "/message")
    schema = payload.get("requestedSchema")
    if not isinstance(schema, dict):
        raise _Unsupported("requestedSchema must be an object", "/requestedSchema")
    place = _Place("requestedSchema", "/requestedSchema", [])
    if schema.get("type") != "object":
        raise _Unsupported('requestedSchema must have type "object"', place.at("type"))
    properties = schema.get("properties", {})
    if not isinstance(properties, dict):
        raise _Unsupported("requestedSchema.properties must be an object", place.at("properties"))
    if len(properties) > MAX_PROPERTIES:
        raise _Unsupported(
            f"requestedSchema has more than {MAX_PROPERTIES} properties", place.at("properties")
        )
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(name, str) for name in required):
        raise _Unsupported(
            "requestedSchema.required must be a list of property names", place.at("required")
        )
    for index, name in enumerate(required):
        if name not in properties:
            raise _Unsupported(
                f"required lists {_quote(name)}, which is not a property",
                place.at("required", index),
            )
    _warn_ignored(place, schema, _SCHEMA_KEYS | _ANNOTATIONS, "the form")
    title = schema.get("title")
    fields = tuple(
        _parse_field(name, prop, name in required, place) for name, prop in properties.items()
    )
    return ElicitationRequest(
        message=message,
        title=title if isinstance(title, str) and title.strip() else None,
        fields=fields,
        warnings=tuple(place.warnings),
    )


def _parse_field(name: object, prop: object, required: bool, schema: _Place) -> Field:
    place = schema.inside(f"property {_quote(name)}", "properties", str(name))
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise _Unsupported(
            f"property name {_quote(name)} is not allowed \N{EM DASH} use up to 64 letters, "
            'digits, "_", "." or "-", starting with a letter or "_"',
            place.pointer,
        )
    if not isinstance(prop, dict):
        raise _Unsupported(f"{place} must be a schema object", place.pointer)
    prop, place, nullable = _unwrap_nullable(prop, place, required)
    title = _text(prop, "title", place)
    secret = _secret_at(name, title, prop)
    if secret is not None:
        raise _Unsupported(
            f"{place} asks for a secret \N{EM DASH} ask for a connection instead "
            "(request_connection: the person enters the secret in the vault's own form and "
            "the agent gets a reference), or use a URL-mode elicitation, never a form field",
            place.at(*secret),
        )
    kind = _field_type(prop, place)
    if _file_shape(prop) is not None:
        return _file_field(name, prop, title, required and not nullable, place)
    field = Field(
        name=name,
        type=kind,
        label=title or humanize(name),
        title=title,
        description=_text(prop, "description", place),
        required=required and not nullable,
        options=_field_options(prop, kind, place),
    )
    if kind == "string" and field.options is None:
        field = _with_text_rules(field, prop, place)
    elif kind in ("number", "integer"):
        field = _with_number_rules(field, prop, place)
    elif kind == "array":
        field = _with_item_counts(field, prop, place)
    if kind in ("string", "number", "integer"):
        placeholder = _ui(prop).get("placeholder")
        if isinstance(placeholder, str) and placeholder.strip():
            field = replace(field, placeholder=placeholder)
    _warn_about_field(field, prop, place)
    return _with_default(field, prop.get("default"), place)


def _file_shape(prop: dict) -> str | None:
    """Return "one" for a file field, "many" for a field of several files, else None."""

    def is_file(schema: object) -> bool:
        if not isinstance(schema, dict) or schema.get("type") != "string":
            return False
        return _format_key(schema) == "data-url" or "contentMediaType" in schema

    if is_file(prop):
        return "one"
    if prop.get("type") == "array" and is_file(prop.get("items")):
        return "many"
    return None


def _file_field(name: str, prop: dict, title: str | None, required: bool, place: _Place) -> Field:
    many = _file_shape(prop) == "many"
    ui, typed = _ui(prop), prop.get("items") if many else prop
    accept = _file_accept(ui, typed, place, *(("items",) if many else ()))
    max_size = _count(ui, "maxSize", place.inside(f"{place} x-ui", "x-ui"))
    if max_size is not None and not 1 <= max_size <= MAX_FILE_BYTES:
        raise _Unsupported(
            f"{place} has x-ui maxSize {max_size} \N{EM DASH} use 1 to {MAX_FILE_BYTES} bytes",
            place.at("x-ui", "maxSize"),
        )
    field = Field(
        name=name,
        type="file",
        label=title or humanize(name),
        title=title,
        description=_text(prop, "description", place),
        required=required,
        accept=accept,
        max_size=max_size or DEFAULT_FILE_BYTES,
    )
    if many:
        field = _with_file_counts(field, prop, ui, place)
    _warn_about_field(field, prop, place)
    if not many and "maxFiles" in ui:
        text = "x-ui maxFiles applies to several files and is ignored"
        place.warn("ignored-keyword", text, "x-ui", "maxFiles")
    if prop.get("default") not in (None, "", []):
        raise _Unsupported(
            f"{place} has a default \N{EM DASH} a file field cannot have one",
            place.at("default"),
        )
    return field


_MIME = re.compile(r"[a-z0-9][a-z0-9!#$&^_.+-]*/(\*|[a-z0-9][a-z0-9!#$&^_.+-]*)")
_TEXT_TYPES = ("application/json",)


def _file_accept(ui: dict, typed: dict, place: _Place, *typed_path: str) -> tuple[str, ...] | None:
    if "accept" in ui:
        accept, keys = ui["accept"], ("x-ui", "accept")
        if isinstance(accept, str):
            accept = [accept]
    elif "contentMediaType" in typed:
        accept, keys = [typed["contentMediaType"]], (*typed_path, "contentMediaType")
    else:
        return None
    if not isinstance(accept, list) or not accept:
        raise _Unsupported(f"{place} has an accept that is not a list of types", place.at(*keys))
    types = []
    for kind in accept:
        if not isinstance(kind, str) or not _MIME.fullmatch(kind.strip().lower()):
            raise _Unsupported(
                f'{place} accepts {_quote(kind)}, which is not a MIME type like "image/png"',
                place.at(*keys),
            )
        kind = kind.strip().lower()
        if kind == "image/svg+xml":
            raise _Unsupported(
                f"{place} accepts SVG \N{EM DASH} an SVG can carry scripts; ask for PNG or JPEG",
                place.at(*keys),
            )
        if kind not in types:
            types.append(kind)
    return tuple(types)


def _with_file_counts(field: Field, prop: dict, ui: dict, place: _Place) -> Field:
    min_items, max_items = _count(prop, "minItems", place), _count(prop, "maxItems", place)
    max_files = _count(ui, "maxFiles", place.inside(f"{place} x-ui", "x-ui"))
    if max_files is not None and not 1 <= max_files <= MAX_FILES:
        raise _Unsupported(
            f"{place} has x-ui maxFiles {max_files} \N{EM DASH} use 1 to {MAX_FILES}",
            place.at("x-ui", "maxFiles"),
        )
    limits = [count for count in (max_items, max_files, MAX_FILES) if count is not None]
    high = min(limits)
    _check_order(min_items, high, place, "minItems", "maxItems")
    if high == 0:
        _unanswerable(field, place, "maxItems 0 allows no file", "maxItems")
    return replace(field, multiple=True, min_items=min_items or None, max_items=high)


def _unwrap_nullable(prop: dict, place: _Place, required: bool) -> tuple[dict, _Place, bool]:
    """Read anyOf [T, {"type": "null"}] and type [T, "null"] (older MCP servers) as optional T."""
    any_of = prop.get("anyOf")
    if isinstance(any_of, list) and len(any_of) == 2:
        others = [
            (index, schema)
            for index, schema in enumerate(any_of)
            if not (isinstance(schema, dict) and schema.get("type") == "null")
        ]
        if len(others) == 1 and isinstance(others[0][1], dict):
            index, inner = others[0]
            outer = {key: value for key, value in prop.items() if key != "anyOf"}
            _warn_nullable(place, inner.get("type"), required, "anyOf")
            inside = replace(place, inner=f"/anyOf/{index}", outer=frozenset(outer))
            return {**inner, **outer}, inside, True
    kind = prop.get("type")
    if isinstance(kind, list) and len(kind) == 2 and kind.count("null") == 1:
        kind = kind[1] if kind[0] == "null" else kind[0]
        _warn_nullable(place, kind, required, "type")
        return {**prop, "type": kind}, place, True
    return prop, place, False


def _warn_nullable(place: _Place, kind: object, required: bool, key: str) -> None:
    text = f"{key} allows null, so the field is read as optional {_quote(kind)}"
    if required:
        text += " and is not required"
    place.warn("nullable-optional", text, key)


def _secret_at(name: str, title: str | None, prop: dict) -> tuple[str, ...] | None:
    """Return the keyword path that asks for a secret ((), title or format), else None."""
    if is_secret_name(name):
        return ()
    if is_secret_name(title or ""):
        return ("title",)
    if _format_key(prop) == "password":
        return ("format",)
    return None


def _field_type(prop: dict, place: _Place) -> str:
    if "anyOf" in prop:
        only_nullable = 'only [T, {"type": "null"}] is read'
        raise _Unsupported(f"{place} uses anyOf \N{EM DASH} {only_nullable}", place.at("anyOf"))
    if "$ref" in prop:
        raise _Unsupported(f"{place} uses $ref \N{EM DASH} inline its schema", place.at("$ref"))
    kind = prop.get("type")
    if kind is None and ("enum" in prop or "oneOf" in prop):
        return "string"  # many servers leave the type off selects
    if kind == "object":
        raise _Unsupported(f"{place} is nested \N{EM DASH} flat dialect only", place.at("type"))
    if kind is None:
        raise _Unsupported(f"{place} has no type", place.pointer)
    if kind not in FIELD_TYPES:
        raise _Unsupported(f"{place} has unsupported type {_quote(kind)}", place.at("type"))
    return kind


def _field_options(prop: dict, kind: str, place: _Place) -> tuple[Option, ...] | None:
    if kind != "array":
        if _has_options(prop) and kind not in _OPTION_TYPES:
            raise _Unsupported(
                f"{place} has options but type {_quote(kind)} "
                "\N{EM DASH} options are for strings and numbers only",
                place.at("type"),
            )
        return _options(prop, kind, place) if _has_options(prop) else None
    items = prop.get("items", {})
    if not isinstance(items, dict):
        raise _Unsupported(f"{place} has items that are not a schema object", place.at("items"))
    item_type = items.get("type", "string")
    if item_type != "string":
        what = "objects" if item_type == "object" else _quote(item_type)
        raise _Unsupported(
            f"{place} is an array of {what} \N{EM DASH} only multi-select of string options "
            "is supported",
            place.at("items", "type"),
        )
    if _has_options(items):
        return _options(items, "string", place, "items")
    if not _has_options(prop):
        raise _Unsupported(
            f"{place} is an array without options \N{EM DASH} only multi-select of string "
            "options is supported",
            place.pointer,
        )
    return _options(prop, "string", place)


def _has_options(schema: dict) -> bool:
    return any(key in schema for key in ("enum", "oneOf", "anyOf"))


def _options(schema: dict, kind: str, place: _Place, *path: str) -> tuple[Option, ...]:
    keys = [key for key in ("enum", "oneOf", "anyOf") if key in schema]
    if len(keys) > 1:
        raise _Unsupported(
            f"{place} has more than one of enum, oneOf and anyOf", place.at(*path, keys[1])
        )
    key = keys[0]
    entries = schema[key]
    if not isinstance(entries, list) or not entries:
        raise _Unsupported(f"{place} has no options in {key}", place.at(*path, key))
    if len(entries) > MAX_OPTIONS:
        raise _Unsupported(f"{place} has more than {MAX_OPTIONS} options", place.at(*path, key))
    if key == "enum":
        values = [
            _option_value(value, kind, place, *path, key, index)
            for index, value in enumerate(entries)
        ]
        names = schema.get("enumNames", [str(value) for value in values])
        if not isinstance(names, list) or len(names) != len(entries):
            raise _Unsupported(
                f"{place} has enumNames that do not match its enum", place.at(*path, "enumNames")
            )
        for index, label in enumerate(names):
            if not isinstance(label, str):
                raise _Unsupported(
                    f"{place} has enumNames that are not all strings",
                    place.at(*path, "enumNames", index),
                )
        options = tuple(
            Option(value, label or str(value)) for value, label in zip(values, names, strict=True)
        )
    else:
        options = tuple(
            _const_option(entry, kind, place, *path, key, index)
            for index, entry in enumerate(entries)
        )
    seen = set()
    for index, option in enumerate(options):
        if isinstance(option.value, str) and not option.value.strip():
            raise _Unsupported(f"{place} has a blank option", place.at(*path, key, index))
        if option.value in seen:
            raise _Unsupported(
                f"{place} has duplicate option {_quote(option.value)}", place.at(*path, key, index)
            )
        seen.add(option.value)
    return options


def _const_option(entry: object, kind: str, place: _Place, *keys: str | int) -> Option:
    if not isinstance(entry, dict) or "const" not in entry:
        raise _Unsupported(f'{place} has an option without a "const"', place.at(*keys))
    value = _option_value(entry["const"], kind, place, *keys, "const")
    option = place.inside(f"{place} option {_quote(value)}", *keys)
    title, description = _text(entry, "title", option), _text(entry, "description", option)
    return Option(value, title or str(value), description)


def _option_value(value: object, kind: str, place: _Place, *keys: str | int) -> str | int | float:
    """Return an option's value as the field's type has it (3.0 for an integer is 3)."""
    if kind == "integer":
        number, noun = _as_int(value), "a whole number"
    elif kind == "number":
        number, noun = _as_number(value), "a number"
    else:
        number, noun = (value if isinstance(value, str) else None), "a string"
    if number is None:
        raise _Unsupported(
            f"{place} has option {_quote(value)}, which is not {noun}", place.at(*keys)
        )
    return number


def _with_text_rules(field: Field, prop: dict, place: _Place) -> Field:
    min_length = _count(prop, "minLength", place)
    max_length = _count(prop, "maxLength", place)
    _check_order(min_length, max_length, place, "minLength", "maxLength")
    pattern = prop.get("pattern")
    if pattern is not None:
        if not isinstance(pattern, str):
            raise _Unsupported(f"{place} has a pattern that is not a string", place.at("pattern"))
        try:
            re.compile(pattern)
        except (re.error, OverflowError, RecursionError) as exc:
            detail = " ".join(str(exc).split())
            raise _Unsupported(
                f"{place} has a pattern that Python cannot compile: {detail}", place.at("pattern")
            ) from None
    if max_length == 0:
        _unanswerable(field, place, "maxLength 0 leaves room for no text", "maxLength")
    widget = _ui(prop).get("widget")
    return replace(
        field,
        format=_FORMATS.get(_format_key(prop) or ""),
        widget=widget if isinstance(widget, str) and widget in WIDGETS else None,
        min_length=min_length,
        max_length=max_length,
        pattern=pattern,
    )


def _with_number_rules(field: Field, prop: dict, place: _Place) -> Field:
    bounds = {key: _bound(prop, key, place) for key in _NUMBER_KEYWORDS}
    for low_key in ("minimum", "exclusiveMinimum"):
        for high_key in ("maximum", "exclusiveMaximum"):
            strict = "exclusive" in low_key + high_key  # 3 < x < 3 leaves nothing
            _check_order(bounds[low_key], bounds[high_key], place, low_key, high_key, strict)
    if bounds["multipleOf"] is not None and bounds["multipleOf"] <= 0:
        raise _Unsupported(
            f"{place} has multipleOf {bounds['multipleOf']}, not above 0", place.at("multipleOf")
        )
    if (empty := _empty_grid(field.type, bounds)) is not None:
        low_key = "minimum" if bounds["minimum"] is not None else "exclusiveMinimum"
        _unanswerable(field, place, empty, "multipleOf" if bounds["multipleOf"] else low_key)
    return replace(
        field,
        minimum=bounds["minimum"],
        maximum=bounds["maximum"],
        exclusive_minimum=bounds["exclusiveMinimum"],
        exclusive_maximum=bounds["exclusiveMaximum"],
        multiple_of=bounds["multipleOf"],
    )


# Each number bound: whether it bounds from above, and whether it is exclusive.
_BOUND_SIDES = (
    ("minimum", False, False),
    ("exclusiveMinimum", False, True),
    ("maximum", True, False),
    ("exclusiveMaximum", True, True),
)


def _empty_grid(kind: str, bounds: dict[str, int | float | None]) -> str | None:
    """Return what no allowed number is ("no whole number is from 1.5 to 1.7"), or None when
    some number is: whole numbers and multiples are a grid that a range can fall between."""
    multiple = bounds["multipleOf"]
    if multiple is None and kind != "integer":
        return None  # any number: the order checks already refuse an empty range
    step = Fraction(str(multiple)) if multiple is not None else Fraction(1)
    if kind == "integer":
        step = Fraction(step.numerator)  # the whole multiples of p/q are the multiples of p
    lows, highs = [], []  # the first and last step of the grid within each bound
    for key, upper, exclusive in _BOUND_SIDES:
        if bounds[key] is not None:
            at = Fraction(str(bounds[key])) / step
            if upper:
                highs.append(math.ceil(at) - 1 if exclusive else math.floor(at))
            else:
                lows.append(math.floor(at) + 1 if exclusive else math.ceil(at))
    if not lows or not highs or max(lows) <= min(highs):
        return None
    if kind == "integer" and step == 1:
        noun = "whole number"
    elif kind == "integer" and step != Fraction(str(multiple)):
        noun = f"whole multiple of {multiple}"
    else:
        noun = f"multiple of {multiple}"
    return f"no {noun} is {_range_words(bounds)}"


def _range_words(bounds: dict[str, int | float | None]) -> str:
    """Return a range as words: "from 1 to 4", "above 1 and below 2"."""
    low, high = bounds["minimum"], bounds["maximum"]
    if low is not None and high is not None and bounds["exclusiveMinimum"] is None:
        if bounds["exclusiveMaximum"] is None:
            return f"from {low} to {high}"
    words = [
        f"{word} {bounds[key]}"
        for key, word in (
            ("minimum", "at least"),
            ("exclusiveMinimum", "above"),
            ("maximum", "at most"),
            ("exclusiveMaximum", "below"),
        )
        if bounds[key] is not None
    ]
    return " and ".join(words)


def _unanswerable(field: Field, place: _Place, problem: str, key: str) -> None:
    """Degrade a required field no value can satisfy (the person would be stuck at Submit);
    warn about an optional one, which can only be left empty."""
    if field.required:
        raise _Unsupported(f"{place} cannot be answered: {problem}", place.at(key))
    text = f"{_quote(field.name)} cannot be answered ({problem}), so it can only be left empty"
    place.warn("unanswerable", text, key)


def _with_item_counts(field: Field, prop: dict, place: _Place) -> Field:
    min_items, max_items = _count(prop, "minItems", place), _count(prop, "maxItems", place)
    _check_order(min_items, max_items, place, "minItems", "maxItems")
    count = len(field.options or ())
    if min_items is not None and min_items > count:
        raise _Unsupported(
            f"{place} needs at least {min_items} choices but has {count} options",
            place.at("minItems"),
        )
    if max_items == 0:
        _unanswerable(field, place, "maxItems 0 allows no choice", "maxItems")
    return replace(field, min_items=min_items, max_items=max_items)


def _with_default(field: Field, default: object, place: _Place) -> Field:
    if default is None or default == "" or default == []:
        return field
    # A default is what the person will most likely submit, so it must pass as an answer.
    alone = ElicitationRequest("", None, (replace(field, required=False),))
    result = _check_typed(alone, {field.name: default})  # agent's own value: not redacted
    if not result.ok:
        problem = result.errors[field.name]
        raise _Unsupported(
            f"{place} has default {_quote(default)}, which is not a valid answer: {problem}",
            place.at("default"),
        )
    return replace(field, default=result.content.get(field.name))


def _warn_about_field(field: Field, prop: dict, place: _Place) -> None:
    """Warn about what the dialect ignores or changes in a property it accepts."""
    shape = _shape(field)
    _warn_ignored(place, prop, _KNOWN[shape], _WHAT[shape])
    items = prop.get("items")
    if field.type == "array" and isinstance(items, dict):
        _warn_ignored(place, items, _ITEM_KEYS, "the options of a multi-select", "items")
    if shape == "files" and isinstance(items, dict):
        _warn_ignored(place, items, _FILE_ITEM_KEYS, "the files of a multi-file field", "items")
    ui = _ui(prop)
    ui_keys = (*_UI_KEYS, *_FILE_UI_KEYS) if field.type == "file" else _UI_KEYS
    _warn_ignored(place, ui, frozenset(ui_keys), _WHAT[shape], "x-ui")
    widget = ui.get("widget")
    if widget is not None and field.widget is None:
        if shape == "text" and widget not in WIDGETS:
            text = f"x-ui widget {_quote(widget)} is not known; the field is plain text"
            place.warn("unknown-widget", text, "x-ui", "widget")
        else:
            text = f"x-ui widget does not apply to {_WHAT[shape]} and is ignored"
            place.warn("ignored-keyword", text, "x-ui", "widget")
    if ui.get("placeholder") is not None and field.placeholder is None:
        text = f"x-ui placeholder does not apply to {_WHAT[shape]} and is ignored"
        place.warn("ignored-keyword", text, "x-ui", "placeholder")
    if "type" not in prop and field.type == "string":
        place.warn("type-assumed", 'no type is given, so the select is read as "string"')
    if field.title is None and field.label.lower() != field.name.lower():  # more than a capital
        text = f"{_quote(field.name)} has no title and shows as {_quote(field.label)}"
        place.warn("humanized-label", text)
    raw = prop.get("format")
    if shape == "text" and raw is not None:
        if field.format is None:
            text = f"format {_quote(raw)} is not known and is dropped; the field is plain text"
            place.warn("unknown-format", text, "format")
        elif raw != field.format:
            text = f"format {_quote(raw)} is read as {_quote(field.format)}"
            place.warn("format-alias", text, "format")


def _shape(field: Field) -> str:
    if field.type == "file":
        return "files" if field.multiple else "file"
    if field.type in ("array", "boolean"):
        return field.type
    if field.options is not None:
        return "select"
    return "number" if field.type in ("number", "integer") else "text"


def _warn_ignored(
    place: _Place, schema: dict, known: frozenset[str], what: str, *path: str
) -> None:
    for key in schema:
        if key in known:
            continue
        if key in _EVERY_KEYWORD:
            text = f"{_quote(key)} does not apply to {what} and is ignored"
        else:
            text = f"{_quote(key)} is not part of the form dialect and is ignored"
        place.warn("ignored-keyword", text, *path, key)


_EVERY_KEYWORD = frozenset().union(
    *_KNOWN.values(), _SCHEMA_KEYS, _ITEM_KEYS, _UI_KEYS, _FILE_UI_KEYS
)


def _text(schema: dict, key: str, place: _Place) -> str | None:
    value = schema.get(key)
    if value is not None and not isinstance(value, str):
        raise _Unsupported(f"{place} has a {key} that is not a string", place.at(key))
    return value if value and value.strip() else None


def _bound(prop: dict, key: str, place: _Place) -> int | float | None:
    value = prop.get(key)
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    if not isinstance(value, float) or not math.isfinite(value):
        raise _Unsupported(
            f"{place} has {key} {_quote(value)}, which is not a finite number", place.at(key)
        )
    return value


def _count(prop: dict, key: str, place: _Place) -> int | None:
    value = prop.get(key)
    if value is None:
        return None
    count = _as_int(value)
    if count is None or count < 0:
        raise _Unsupported(
            f"{place} has a {key} that is not a whole number of 0 or more", place.at(key)
        )
    return count


def _check_order(
    low: int | float | None,
    high: int | float | None,
    place: _Place,
    low_key: str,
    high_key: str,
    strict: bool = False,
) -> None:
    if low is None or high is None or low < high or (low == high and not strict):
        return
    relation = "not below" if strict else "greater than"
    raise _Unsupported(f"{place} has {low_key} {relation} {high_key}", place.at(low_key))


def _format_key(prop: dict) -> str | None:
    value = prop.get("format")
    return re.sub(r"\s", "", value.lower()) if isinstance(value, str) else None


def _ui(prop: dict) -> dict:
    ui = prop.get("x-ui")
    return ui if isinstance(ui, dict) else {}


def _quote(value: object) -> str:
    """Return value as JSON on one line, shortened so a reason stays readable."""
    text = json.dumps(value)  # ASCII escapes keep line separators such as U+2028 out
    return text if len(text) <= 60 else text[:57] + "..."


def _as_int(value: object) -> int | None:
    """Return value as an int when it is a whole number (3.0 counts), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    return int(value) if isinstance(value, float) and value.is_integer() else None


def _as_number(value: object) -> int | float | None:
    """Return value when it is a finite JSON number (not a boolean), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value if math.isfinite(value) else None


# Answers

# jsonschema's own email check only looks for an "@": "ada@" would pass. Ask for more.
_EMAIL_RE = re.compile(r"[^@\s]+@[^@\s.]+(\.[^@\s.]+)+")
_FORMAT_CHECKER = copy.deepcopy(Draft202012Validator.FORMAT_CHECKER)


def _exact_multiple_of(validator, multiple, instance, schema):
    """Check multipleOf on the numbers' decimal text: jsonschema's float check refuses 0.3
    for 0.1 and 19.99 for 0.01."""
    if validator.is_type(instance, "number") and Fraction(str(instance)) % Fraction(str(multiple)):
        yield ValidationError(f"{instance} is not a multiple of {multiple}")


_VALIDATOR = validators.extend(Draft202012Validator, {"multipleOf": _exact_multiple_of})
_FORMAT_CHECKER.checks("email")(
    lambda value: not isinstance(value, str) or bool(_EMAIL_RE.fullmatch(value))
)


def _check(
    request: ElicitationRequest, read: Callable[[Field], tuple[Any, str | None]]
) -> AnswerResult:
    content: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for field in request.fields:
        value, error = read(field)
        if error:
            errors[field.name] = error
        elif value is not None:
            content[field.name] = value
        elif field.required:
            errors[field.name] = _REQUIRED
    validator = _VALIDATOR(request.schema(), format_checker=_FORMAT_CHECKER)
    for error in validator.iter_errors(content):
        # Errors without a path are "required" ones, already reported field by field above.
        if error.path:
            field = next(f for f in request.fields if f.name == error.path[0])
            errors.setdefault(field.name, _message(error, field))
    ordered = {field.name: errors[field.name] for field in request.fields if field.name in errors}
    return AnswerResult(None if errors else content, ordered)


def _check_typed(request: ElicitationRequest, content: object) -> AnswerResult:
    if not isinstance(content, Mapping):
        return AnswerResult(None, {"": "The answer must be a JSON object."})
    return _check(request, lambda field: _read_typed(field, content.get(field.name)))


def _redact(request: ElicitationRequest, result: AnswerResult) -> AnswerResult:
    """Replace secret-looking values in the text fields of valid content.

    Only prose is redacted: code fields keep `key: value` lines as typed, and dates, emails,
    web addresses and options are not free text.
    """
    if not result.ok:
        return result
    content = dict(result.content)
    redacted = []
    for field in request.fields:
        value = content.get(field.name)
        if isinstance(value, str) and _is_prose(field):
            content[field.name], found = redact_secrets(value)
            if found:
                redacted.append(field.name)
    return AnswerResult(content, {}, tuple(redacted))


def _is_prose(field: Field) -> bool:
    plain = field.format in (None, "multiline") and field.widget != "code"
    return field.type == "string" and field.options is None and plain


def _form_values(data: Mapping, name: str) -> list[str]:
    # A QueryDict's get() returns only the last value; getlist() returns them all.
    getlist = getattr(data, "getlist", None)
    raw = getlist(name) if callable(getlist) else data.get(name, [])
    if isinstance(raw, str):
        return [raw]
    if not isinstance(raw, list | tuple):
        return []  # anything else counts as not submitted
    return [value for value in raw if isinstance(value, str)]


def _read_form(field: Field, values: list[str], zone: ZoneInfo) -> tuple[Any, str | None]:
    if any(len(value) > MAX_ANSWER_CHARS for value in values):
        return None, _TOO_LONG
    if field.type == "array":
        return [value for value in values if value] or None, None
    text = values[-1] if values else ""
    if field.type == "boolean":
        key = text.strip().lower()
        if not key:  # an unticked checkbox sends nothing; "No answer" sends ""
            return (False if field.required else None), None
        return (key in _TRUE, None) if key in _TRUE + _FALSE else (None, _YES_OR_NO)
    if field.type in ("integer", "number"):
        number, error = _read_number(text.strip(), whole=field.type == "integer")
        return number, error and _number_error(field, error)
    value = _clean_text(field, text)
    if value is not None and field.format == "date-time":
        try:
            value = from_local(value, zone)
        except LocalTimeError as exc:
            return None, str(exc)
    return value, None


def _read_files(field: Field, described: object) -> tuple[Any, str | None]:
    """Read a file field's stored files (their descriptions): one, or a list for several."""
    if not isinstance(described, list | tuple):
        described = [described]
    answers = []
    for description in described:
        if not _is_file_answer(description):
            return None, _ATTACH
        problem = file_problem(field, description)
        if problem:
            name = description["name"]
            return None, f"{name}: {problem}" if field.multiple else problem
        answers.append({key: description[key] for key in FILE_KEYS})
    if not answers:
        return None, None
    if not field.multiple:
        if len(answers) > 1:
            return None, "Attach one file."
        return answers[0], None
    if field.max_items is not None and len(answers) > field.max_items:
        return None, f"Attach at most {_plural(field.max_items, 'file')}."
    if field.min_items is not None and len(answers) < field.min_items:
        return None, f"Attach at least {_plural(field.min_items, 'file')}."
    return answers, None


_SHA256 = re.compile(r"[0-9a-f]{64}")


def _is_file_answer(value: object) -> bool:
    """Return whether a value is a file answer: {file, name, size, type, sha256}."""
    if not isinstance(value, Mapping) or any(key not in value for key in FILE_KEYS):
        return False
    texts = all(isinstance(value[key], str) and value[key] for key in ("file", "name", "type"))
    size = isinstance(value["size"], int) and not isinstance(value["size"], bool)
    return (
        texts
        and size
        and isinstance(value["sha256"], str)
        and bool(_SHA256.fullmatch(value["sha256"]))
    )


def _read_number(text: str, *, whole: bool) -> tuple[int | float | None, str | None]:
    message = _WHOLE_NUMBER if whole else _NUMBER
    if not text:
        return None, None
    try:
        if _INTEGER_TEXT.fullmatch(text):
            return int(text), None
    except ValueError:  # more digits than Python converts to an int
        return None, message
    if not whole and _NUMBER_TEXT.fullmatch(text) and math.isfinite(number := float(text)):
        return number, None
    return None, message


def _number_error(field: Field, error: str) -> str:
    return _CHOOSE if field.options is not None else error  # a select's value is an option


def _read_typed(field: Field, value: object) -> tuple[Any, str | None]:
    if value is None:
        return None, None
    match field.type:
        case "file":
            if field.multiple and not isinstance(value, list):
                return None, _ATTACH
            return _read_files(field, value)
        case "boolean":
            return (value, None) if isinstance(value, bool) else (None, _YES_OR_NO)
        case "integer" | "number":
            whole = field.type == "integer"
            number = _as_int(value) if whole else _as_number(value)
            error = _WHOLE_NUMBER if whole else _NUMBER
            return (number, None) if number is not None else (None, _number_error(field, error))
        case "array":
            if isinstance(value, list) and all(isinstance(item, str) for item in value):
                return value or None, None
            return None, _CHOOSE
    if not isinstance(value, str):
        return None, _CHOOSE if field.options is not None else _TEXT
    if len(value) > MAX_ANSWER_CHARS:
        return None, _TOO_LONG
    return _clean_text(field, value), None


def _clean_text(field: Field, text: str) -> str | None:
    if not text.strip():
        return None
    if field.options is not None:
        return text  # select values are matched exactly
    if field.format == "multiline" or field.widget in WIDGETS:
        return text.replace("\r\n", "\n")  # browsers send textarea newlines as CRLF
    return text.strip()


def _message(error: ValidationError, field: Field) -> str:
    limit = error.validator_value
    match error.validator:
        case "minimum":
            return f"Enter at least {limit}."
        case "maximum":
            return f"Enter at most {limit}."
        case "exclusiveMinimum":
            return f"Enter more than {limit}."
        case "exclusiveMaximum":
            return f"Enter less than {limit}."
        case "multipleOf":
            return multiple_of_message(limit)
        case "minLength":
            return f"Use at least {_plural(limit, 'character')}."
        case "maxLength":
            return f"Use at most {_plural(limit, 'character')}."
        case "minItems":
            return f"Choose at least {_plural(limit, 'option')}."
        case "maxItems":
            return f"Choose at most {_plural(limit, 'option')}."
        case "uniqueItems":
            return "Choose each option only once."
        case "pattern":
            # A regular expression means nothing to most people; an example does.
            placeholder = " ".join((field.placeholder or "").split())  # keep it one line
            example = f", like {placeholder}" if placeholder else ""
            return f"This is not in the expected format{example}."
        case "format":
            return _FORMAT_MESSAGES[limit]
    return _CHOOSE  # enum: a value that is not one of the options


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


# Serialisation


def _file_schema(field: Field) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "file": {"type": "string", "minLength": 1},
            "name": {"type": "string", "minLength": 1},
            "size": {"type": "integer", "minimum": 1, "maximum": field.max_size},
            "type": {"type": "string", "minLength": 1},
            "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
        },
        "required": list(FILE_KEYS),
        "additionalProperties": False,
    }


def _field_schema(field: Field) -> dict[str, Any]:
    if field.type == "file" and not field.multiple:
        return _file_schema(field)
    if field.type == "file":
        schema = {"type": "array", "items": _file_schema(field), "minItems": 1}
        for attribute, keyword in (("min_items", "minItems"), ("max_items", "maxItems")):
            if getattr(field, attribute) is not None:
                schema[keyword] = getattr(field, attribute)
        return schema
    values = [option.value for option in field.options or ()]
    if field.type == "array":
        schema = {"type": "array", "items": {"type": "string", "enum": values}, "uniqueItems": True}
    else:
        schema = {"type": field.type}
        if field.options is not None:
            schema["enum"] = values
    for attribute, keyword in _KEYWORDS.items():
        if getattr(field, attribute) is not None:
            schema[keyword] = getattr(field, attribute)
    if field.format in _FORMAT_MESSAGES:  # multiline is a display hint, not a check
        schema["format"] = field.format
    return schema


def _field_to_dict(field: Field) -> dict[str, Any]:
    data = {item.name: getattr(field, item.name) for item in fields(field)}
    if field.options is not None:
        data["options"] = [_without_none(asdict(option)) for option in field.options]
    if field.accept is not None:
        data["accept"] = list(field.accept)
    return _without_none(data)


def _field_from_dict(data: dict[str, Any]) -> Field:
    data = {"title": None, "description": None, **data}
    if data.get("options") is not None:
        data["options"] = tuple(Option(**option) for option in data["options"])
    if data.get("accept") is not None:
        data["accept"] = tuple(data["accept"])
    return Field(**data)


def _without_none(data: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if value is not None}


def _with_message(envelope: dict[str, Any], human_friendly_message: str | None) -> dict[str, Any]:
    if human_friendly_message:
        envelope["humanFriendlyMessage"] = human_friendly_message
    return envelope

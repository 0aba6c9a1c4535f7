"""Read the editor's text as a payload: JSON with its line and column on a mistake, limits first.

The editor text is read before the contract sees it, so a huge or absurdly deep text is
refused with the limit it broke instead of hanging the parser or raising a 500.
"""

import json
import re
from dataclasses import dataclass

from django.conf import settings

from elicitation.contract import MAX_PAYLOAD_BYTES

# Pretty-printed JSON is bigger than the compact encoding the contract's 64 KiB counts, so the
# editor takes twice that before it even parses; the contract names its own limit after. (The
# page sends its forms as multipart, which carries the text's UTF-8 bytes as they are, so a
# text within this limit stays under Django's DATA_UPLOAD_MAX_MEMORY_SIZE; URL-encoding would
# triple a Cyrillic letter or a bracket. The page's script measures what it sends.)
MAX_TEXT_BYTES = 2 * MAX_PAYLOAD_BYTES
MAX_DEPTH = 32  # a flat schema needs 5 levels (payload, schema, properties, property, items)


@dataclass(frozen=True)
class Reading:
    payload: object = None
    problem: str = ""  # empty when the text is a JSON value within the limits
    line: int | None = None
    column: int | None = None

    @property
    def ok(self) -> bool:
        return not self.problem


def read_payload(text: str, *, empty: str = "Type or paste a request_input payload.") -> Reading:
    """Return the JSON value a text holds, or why it cannot be read (with where).

    `empty` is what to say about a blank text.
    """
    size = len(text.encode())
    if size > MAX_TEXT_BYTES:
        return Reading(problem=too_big(f"{size:,}"))
    if not text.strip():
        return Reading(problem=empty)
    try:
        payload = json.loads(text)
    except json.JSONDecodeError as error:
        return Reading(problem=plain_words(error), line=error.lineno, column=error.colno)
    except RecursionError:
        return Reading(problem=_too_deep())
    if depth(payload) > MAX_DEPTH:
        return Reading(problem=_too_deep())
    return Reading(payload=payload)


_CLOSER = {"{": "}", "[": "]"}


def plain_words(error: json.JSONDecodeError) -> str:
    """Return what is wrong with a text that is not JSON, in words a person can act on
    ("A “}” is missing at line 4, column 1: ..."), never the parser's own message."""
    text, pos, msg = error.doc, error.pos, error.msg
    at = f"at line {error.lineno}, column {error.colno}"
    here = text[pos : pos + 1]
    unclosed = _unclosed(text, pos)
    if msg in ("Expecting ',' delimiter", "Expecting value") and unclosed:
        opener, where = unclosed[-1]
        closer = _CLOSER[opener]
        if not text[pos:].strip() or (here in "]}" and here != closer):
            return f"A “{closer}” is missing {at}: the “{opener}” {where} is not closed."
    if msg == "Expecting value":
        if pos == 0 or not text[:pos].strip():
            return f"This is not JSON: it starts with “{_word(text, pos)}”."
        if here in "]}":
            return f"A value is missing before the “{here}” {at}."
        return (
            f"“{_word(text, pos)}” {at} is not a JSON value: text goes in double quotes, "
            "and true, false and null are written in lower case."
        )
    if msg == "Expecting ',' delimiter":
        return f"A comma is missing {at}, before “{_word(text, pos)}”."
    if msg.startswith("Illegal trailing comma") or (
        msg.startswith("Expecting property name") and text[pos:].lstrip()[:1] == "}"
    ):
        return f"A comma {at} has nothing after it: remove it."
    if msg.startswith("Expecting property name"):
        quotes = " (not single quotes)" if here == "'" else ""
        return f"A property name in double quotes{quotes} is expected {at}."
    if msg == "Expecting ':' delimiter":
        return f"A “:” is missing {at}, after the property name."
    if msg == "Extra data":
        return f"The JSON has ended, but more follows {at}: “{_word(text, pos)}”."
    if msg.startswith("Unterminated string"):
        return f'The text in quotes that starts {at} has no closing “"”.'
    if msg.startswith("Invalid control character"):
        return f"A line break or tab inside quotes {at}: write it as \\n or \\t."
    if msg.startswith("Invalid \\escape"):
        return f"The backslash {at} starts no JSON escape: write \\\\ for a backslash."
    return f"This is not JSON: {msg} {at}."


def _unclosed(text: str, end: int) -> list[tuple[str, str]]:
    """Return the brackets still open before `end`, each with where it was opened."""
    stack: list[tuple[str, int]] = []
    quoted = escaped = False
    for index, char in enumerate(text[:end]):
        if quoted:
            escaped, quoted = (not escaped and char == "\\"), quoted and (escaped or char != '"')
        elif char == '"':
            quoted = True
        elif char in _CLOSER:
            stack.append((char, index))
        elif char in "]}" and stack:
            stack.pop()
    return [(char, _where(text, index)) for char, index in stack]


def _where(text: str, index: int) -> str:
    before = text[:index]
    return f"at line {before.count(chr(10)) + 1}, column {index - before.rfind(chr(10))}"


def _word(text: str, pos: int) -> str:
    """Return the word (or character) at `pos`, shortened to stay readable."""
    match = re.match(r'"[^"\n]*"?|[\w.+-]+|\S', text[pos:].lstrip())
    word = match.group() if match else ""
    return word if len(word) <= 20 else word[:19] + "…"


def too_big(size: str) -> str:
    """Return the refusal of a text of `size` bytes (a number, or a script's placeholder)."""
    return (
        f"This text is {size} bytes: the workbench reads at most {MAX_TEXT_BYTES // 1024} KiB, "
        f"and a payload may be at most {MAX_PAYLOAD_BYTES // 1024} KiB as compact JSON."
    )


def too_much_to_send(size: str) -> str:
    """Return the refusal of a request of `size` bytes, past what the server reads at once."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE // 1024
    return (
        f"This would send {size} bytes, and the server reads at most {limit} KiB in one "
        "request, so nothing was sent. What you typed is still here: shorten it."
    )


def depth(value: object) -> int:
    """Return how deeply objects and arrays nest in a JSON value (without recursion)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        value, level = stack.pop()
        if isinstance(value, dict | list):
            deepest = max(deepest, level)
            children = value.values() if isinstance(value, dict) else value
            stack.extend((child, level + 1) for child in children)
    return deepest


def _too_deep() -> str:
    return (
        f"This text nests more than {MAX_DEPTH} levels deep, the workbench's limit "
        "(a request_input payload needs 5)."
    )


def locate(text: str, pointer: str) -> tuple[int, int] | None:
    """Return the line and column where a JSON pointer's last key is written in `text`.

    Each key is looked for after its parent's, the first `"key":` there; array positions are
    skipped (the place shown is their array's key). None when the text does not spell it so.
    """
    position, found = 0, None
    for part in pointer.split("/")[1:]:
        key = part.replace("~1", "/").replace("~0", "~")
        if key.isdigit():
            continue
        match = re.compile(re.escape(json.dumps(key)) + r"\s*:").search(text, position)
        if match is None:
            return None
        position, found = match.end(), match.start()
    if found is None:
        return None
    before = text[:found]
    return before.count("\n") + 1, found - (before.rfind("\n") + 1) + 1

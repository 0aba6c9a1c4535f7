"""Read the editor's text as a payload: JSON with its line and column on a mistake, limits first.

The editor text is read before the contract sees it, so a huge or absurdly deep text is
refused with the limit it broke instead of hanging the parser or raising a 500.
"""

import json
import re
from dataclasses import dataclass

from elicitation.contract import MAX_PAYLOAD_BYTES

# Pretty-printed JSON is bigger than the compact encoding the contract's 64 KiB counts, so the
# editor takes twice that before it even parses; the contract names its own limit after. (The
# form-encoded request stays under Django's 256 KiB DATA_UPLOAD_MAX_MEMORY_SIZE for most text;
# the page's script does not send more than this.)
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
        return Reading(
            problem=f"Not JSON: {error.msg} at line {error.lineno}, column {error.colno}.",
            line=error.lineno,
            column=error.colno,
        )
    except RecursionError:
        return Reading(problem=_too_deep())
    if depth(payload) > MAX_DEPTH:
        return Reading(problem=_too_deep())
    return Reading(payload=payload)


def too_big(size: str) -> str:
    """Return the refusal of a text of `size` bytes (a number, or a script's placeholder)."""
    return (
        f"This text is {size} bytes: the workbench reads at most {MAX_TEXT_BYTES // 1024} KiB, "
        f"and a payload may be at most {MAX_PAYLOAD_BYTES // 1024} KiB as compact JSON."
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

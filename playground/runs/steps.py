"""How a step reads in the chat: a short summary of its arguments and of its outcome.

Summaries are made once, when the step runs, and stored on its record (`Step.arguments`,
`Step.outcome`), so a reload and the admin show what the open tabs were shown. Anything that
looks like a secret is removed first (`elicitation.secrets`): the value of a key that names
one ("api_key", "password") and secret-looking text anywhere ("sk-live-…", "token: …").
Summaries are plain text; the template escapes them like any agent text.
"""

import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from elicitation.secrets import REDACTED, is_secret_name, redact_secrets

MAX_ARGUMENTS = 300
MAX_OUTCOME = 500
MAX_RAW = 50_000


@dataclass(frozen=True)
class Outcome:
    """How a finished step went, in a line: `failed` when its result reports an error."""

    text: str
    failed: bool = False
    # The result as it came (a tool's JSON), shown beside the summary; None: not shown.
    raw: Any = None


Describe = Callable[[Any], Outcome]


def shorten(text: str, limit: int) -> str:
    """Return `text` on one line, cut at `limit` characters with an ellipsis."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def without_secrets(value: Any) -> Any:
    """Return JSON-like data with secrets removed: the values of secret-named keys, and
    secret-looking text in every string."""
    if isinstance(value, dict):
        return {
            str(key): REDACTED if is_secret_name(str(key)) else without_secrets(item)
            for key, item in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [without_secrets(item) for item in value]
    if isinstance(value, str):
        return redact_secrets(value)[0] if value else value
    return value


def describe_value(value: Any, limit: int = MAX_OUTCOME) -> str:
    """Return data as a short line: text as it is, anything else as compact JSON."""
    value = without_secrets(value)
    if isinstance(value, str):
        return shorten(value, limit)
    return shorten(json.dumps(value, ensure_ascii=False, default=str), limit)


def describe_arguments(fn: Callable, args: tuple) -> str:
    """Return what a step function is called with, by parameter name ("environment: "staging",
    version: "v1.4.2""); arguments that are not plain data (a user, a context) are left out."""
    try:
        bound = inspect.signature(fn).bind_partial(*args).arguments
    except (TypeError, ValueError):
        bound = {f"#{position}": arg for position, arg in enumerate(args, start=1)}
    shown = []
    for name, value in bound.items():
        if not _is_plain(value):
            continue
        value = REDACTED if is_secret_name(name) else without_secrets(value)
        shown.append(f"{name}: {json.dumps(value, ensure_ascii=False)}")
    return shorten(", ".join(shown), MAX_ARGUMENTS)


def describe_mapping(arguments: dict) -> str:
    """Return a call's named arguments (a tool's, say) as a short line."""
    shown = without_secrets(dict(arguments or {}))
    pairs = (
        f"{name}: {json.dumps(value, ensure_ascii=False, default=str)}"
        for name, value in shown.items()
    )
    return shorten(", ".join(pairs), MAX_ARGUMENTS)


def raw_text(raw: Any) -> str:
    """Return a step's result as it came, as indented JSON with secrets removed ("" if none)."""
    if raw is None:
        return ""
    text = json.dumps(without_secrets(raw), ensure_ascii=False, indent=2, default=str)
    return text if len(text) <= MAX_RAW else text[:MAX_RAW] + "\n… (cut here: it goes on)"


def default_outcome(result: Any) -> Outcome:
    """Return how a step went from its JSON result."""
    if result is None or result == "" or result == {} or result == []:
        return Outcome("Done.")
    return Outcome(describe_value(result))


def error_outcome(error: BaseException) -> str:
    """Return the error a step raised, as a line."""
    text = str(error)
    line = f"{type(error).__name__}: {text}" if text else type(error).__name__
    return describe_value(line)


def _is_plain(value: Any) -> bool:
    if value is None or isinstance(value, (str, int, float, bool)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_is_plain(item) for item in value)
    if isinstance(value, dict):
        return all(isinstance(key, str) and _is_plain(item) for key, item in value.items())
    return False

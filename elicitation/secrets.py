"""Spot secrets: field names that ask for one, and secret-looking values in text people type.

Pure Python (no Django). The contract uses it to refuse forms that ask for secrets and to
redact answers; the chat and the onboarding wizard use it to redact messages.

- `is_secret_name(text)`: whether a property name or title asks for a secret. Judged by words:
  "authToken", "client_secret", "API Key", "private_key", "credit_card_number", "cvv", "PIN"
  and "otp" do; "max_tokens" (a count), "secretary", "passport", "pinned" and "shipping" do
  not.
- `redact_secrets(text)`: the text with secret-looking values replaced by "[redacted]", and
  whether any were found. What counts as one:
  - token shapes that are secrets wherever they appear: `sk-…`, `sk_live_…`, `ghp_…`,
    `github_pat_…`, `glpat-…`, `xoxb-…`, `AKIA…`, `AIza…`, JSON web tokens, private key blocks,
    bearer tokens and the password in `https://user:password@host`;
  - a value after a word that names a secret, judged by how plainly the text says it:
    `key=x`, `password: x`, `api_key: x` and `secret: 'x'` always; "token: abc123" and
    "the password is hunter2" when the value could be a password (letters with digits or
    symbols); "token 9f86d0…" when the value looks generated (16+ characters with a digit).
  Ordinary words, numbers, dates, times, web addresses and email addresses are left alone,
  also after "key:" or "token:" ("Key: the staging deploy goes first").
"""

import re
from itertools import pairwise

__all__ = ["REDACTED", "is_secret_name", "redact_secrets"]

REDACTED = "[redacted]"

# Field names

_NAME_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_SECRET_NAME_PARTS = (
    "password",
    "passwd",
    "passphrase",
    "credential",
    "apikey",
    "privatekey",
    "accesskey",
)


# Whole words only: "pin" and "otp" are secrets, "pinned" and "shipping" are not.
_SECRET_NAME_WORDS = frozenset({"cvv", "cvc", "cvv2", "cvc2", "pin", "otp", "cardnumber"})


def is_secret_name(text: str) -> bool:
    """Return whether a property name or title asks for a secret."""
    words = [word.lower() for word in _NAME_WORD.findall(text)]
    joined = "".join(words)
    # Whole words for token/secret: "authToken" and "client_secret" are secrets,
    # "max_tokens" (a count) and "secretary" are not.
    return (
        any(part in joined for part in _SECRET_NAME_PARTS)
        or any(word.endswith(("token", "secret")) or word == "secrets" for word in words)
        or any(word in _SECRET_NAME_WORDS for word in words)
        or ("card", "number") in pairwise(words)
    )


# Values

_TOKEN_SHAPES: tuple[re.Pattern[str], ...] = (
    re.compile(
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)", re.S
    ),
    re.compile(r"\bsk-[A-Za-z0-9_-]{20,}"),
    re.compile(r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}"),
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"),
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}"),
    re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}"),
    re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    re.compile(r"\bAIza[0-9A-Za-z_-]{35}"),
    re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
)
_BEARER = re.compile(r"\b(bearer)(\s+)(?=[A-Za-z._~+/=-]*\d)[A-Za-z0-9._~+/=-]{8,}", re.I)
_URL_PASSWORD = re.compile(r"(://[^/\s:@]+:)[^@\s/]+(@)")
# Words that only ever name a secret, and words that often mean something else ("key points").
_STRONG = (
    r"pass(?:word|phrase)s?|passwd|pwd|api[ _-]?keys?|access[ _-]?keys?|private[ _-]?keys?|"
    r"client[ _-]?secrets?|credentials?"
)
_WEAK = r"keys?|tokens?|secrets?"
_SECRET_WORD = re.compile(
    rf"\b(?P<word>{_STRONG}|{_WEAK})"
    r"(?P<sep>\s*[:=]\s*|\s+(?:is|was)\s+|\s+)"
    r"(?P<value>\"[^\"\n]+\"|'[^'\n]+'|[^\s,;]+)",
    re.I,
)
_STRONG_WORD = re.compile(_STRONG, re.I)
_GENERATED = re.compile(r"(?=[A-Za-z+/=_.-]*\d)[A-Za-z0-9+/=_.-]{16,}")
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[A-Za-z]{2,}")


def _could_be_password(value: str) -> bool:
    """Return whether a value could be a password rather than a word, number, date or address."""
    if len(value) < 6 or "://" in value or _EMAIL.fullmatch(value):
        return False
    has_letter = any(char.isalpha() for char in value)
    has_digit = any(char.isdigit() for char in value)
    return has_letter and (has_digit or any(char in "!$%^&*~" for char in value))


def _is_secret_value(word: str, sep: str, value: str, quoted: bool) -> bool:
    strong = _STRONG_WORD.fullmatch(word) is not None
    if "=" in sep or (":" in sep and (strong or quoted)):
        return True
    if ":" in sep or strong:
        return _could_be_password(value)
    return _GENERATED.fullmatch(value) is not None


def _redact_after_word(match: re.Match[str]) -> str:
    raw = match.group("value")
    quoted = raw[0] in "\"'" and raw[-1] == raw[0] and len(raw) > 1
    value = raw[1:-1] if quoted else raw.rstrip(".!?)")
    if not value.strip() or value == REDACTED:
        return match.group(0)
    if not _is_secret_value(match.group("word"), match.group("sep"), value, quoted):
        return match.group(0)
    return match.group("word") + match.group("sep") + raw.replace(value, REDACTED, 1)


def redact_secrets(text: str) -> tuple[str, bool]:
    """Replace things that look like secrets with "[redacted]"; say whether any were found."""
    if not isinstance(text, str) or not text:
        return "", False
    redacted = text
    for pattern in _TOKEN_SHAPES:
        redacted = pattern.sub(REDACTED, redacted)
    redacted = _BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", redacted)
    redacted = _URL_PASSWORD.sub(lambda m: f"{m.group(1)}{REDACTED}{m.group(2)}", redacted)
    redacted = _SECRET_WORD.sub(_redact_after_word, redacted)
    return redacted, redacted != text

"""Turn a free-text agent description into an AgentDraft, deterministically and without an LLM.

The extractor fills a slot only when the description says it plainly. Anything unclear is
listed in `missing`, in the order the wizard should ask, and where a sensible default exists it
is offered in `proposed` so the question can pre-fill it ("every morning" proposes 09:00 but
still asks). It never raises, whatever the string.

Schedules are read by `schedules` and time zones by `time_zones` (their docstrings list the
phrases they know). Decisions worth knowing here:
- Timezone is only asked for schedules that fire at a clock time (or while the schedule is
  still unknown); an interval agent uses UTC.
- A platform name with a typo ("Zendsk") is not taken: it is suggested, pre-selected, in the
  platform question ("Did you mean Zendesk?"), matched with `difflib` against the catalog.
- "DM me" / "a Slack DM" / "direct message" is a Slack direct message; without Slack named
  anywhere it is proposed and asked. "here", "in this chat" after a delivery verb is the chat.
"""

from __future__ import annotations

import copy
import difflib
import re
import unicodedata
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from elicitation.secrets import redact_secrets
from playground.onboarding import catalog
from playground.onboarding.schedules import read_schedule
from playground.onboarding.time_zones import find_timezones

MAX_DESCRIPTION_CHARS = 10_000
MAX_NAME_CHARS = 80
MAX_PURPOSE_CHARS = 200
MAX_INSTRUCTIONS_CHARS = 4_000
ASK_INSTEAD = "When something is unclear, ask the person with request_input instead of guessing."

# The order the wizard asks in: what the agent is for first, then where, when, and how it reports.
SLOT_ORDER: tuple[str, ...] = (
    "purpose",
    "platform",
    "trigger",
    "timezone",
    "destination",
    "name",
    "instructions",
)

# Redaction looks this far past the truncation point so a secret straddling it is still caught.
_SECRET_MARGIN = 256


@dataclass
class AgentDraft:
    """What the wizard knows so far about the agent being set up.

    Slots hold only complete, valid values; a partial answer lives in `proposed` instead.
    `errors` maps a slot to a plain sentence saying why its last answer was not used, and
    `redacted` says whether something that looked like a secret was removed from the text.
    """

    name: str | None = None
    purpose: str | None = None
    instructions: str | None = None
    platform: str | None = None
    platform_candidates: list[str] = field(default_factory=list)
    trigger: dict[str, Any] | None = None
    timezone: str | None = None
    timezone_candidates: list[str] = field(default_factory=list)
    destination: dict[str, Any] | None = None
    tools: list[str] = field(default_factory=lambda: list(catalog.ALWAYS_TOOLS))
    missing: list[str] = field(default_factory=list)
    proposed: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    redacted: bool = False
    # The person's own zone, which the time-zone question starts from when the text names none.
    home_timezone: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-serialisable copy of the draft."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AgentDraft:
        """Build a draft from `to_dict()` output, ignoring keys it does not know."""
        known = {f.name for f in fields(cls)}
        draft = cls(**{key: copy.deepcopy(value) for key, value in data.items() if key in known})
        draft.tools = list(catalog.ALWAYS_TOOLS) + [
            tool for tool in draft.tools or [] if tool not in catalog.ALWAYS_TOOLS
        ]
        return draft


def missing_slots(draft: AgentDraft) -> list[str]:
    """Return the slots the draft still needs, in the order the wizard asks them."""
    trigger = draft.trigger
    needs_timezone = trigger is None or trigger.get("kind") in catalog.TIMED_TRIGGERS
    gaps = {
        "purpose": not draft.purpose,
        "platform": not draft.platform,
        "trigger": trigger is None,
        "timezone": draft.timezone is None and needs_timezone,
        "destination": draft.destination is None,
        "name": not draft.name,
        "instructions": not draft.instructions,
    }
    return [slot for slot in SLOT_ORDER if gaps[slot]]


# --- Text ----------------------------------------------------------------------------------

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = "".join(ch for ch in text if unicodedata.category(ch) not in ("Cs", "Cf"))
    return _CONTROL.sub(" ", text)


def _truncate(text: str, limit: int, ellipsis: str = "") -> str:
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit - len(ellipsis) + 1)
    if cut < limit // 2:
        cut = limit - len(ellipsis)
    return text[:cut].rstrip() + ellipsis


def clean_description(description: str) -> tuple[str, bool]:
    """Return the description normalised, redacted, on one line and at most 10,000 characters."""
    if not isinstance(description, str):
        return "", False
    text = _normalise(description[: MAX_DESCRIPTION_CHARS + _SECRET_MARGIN])
    text, redacted = redact_secrets(text)
    return _truncate(" ".join(text.split()), MAX_DESCRIPTION_CHARS), redacted


# --- Destinations --------------------------------------------------------------------------

_CHANNEL = re.compile(r"(?<![\w#&])#([A-Za-z0-9][\w-]{0,79})")
_EMAIL_ADDRESS = re.compile(
    r"(?<![\w.%+-])[\w.%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"
)
_CHAT = re.compile(
    r"\b(?:(?:reply|respond|answer|tell|show|report|post|send|share|drop|put|write|give|"
    r"deliver|leave)\w*(?:\s+(?!here\b)[\w'-]+){0,4}?\s+(?:right\s+|back\s+)?here|"
    r"(?:here\s+)?(?:in|to|into)\s+(?:this|the)\s+chat|here\s+in\s+chat)\b(?!\s+(?:is|are)\b)",
    re.I,
)
_DIRECT_MESSAGE = re.compile(
    r"\b(?:slack\s+)?(?:dms?|direct[\s-]+messages?)\b(?P<me>\s+(?:me|us)\b)?"
    r"(?:\s+(?:in|on|via|over)\s+slack\b)?",
    re.I,
)
_SLACK = re.compile(r"\bslack\b", re.I)
_EMAIL_ME = re.compile(
    r"\b(?:e-?mail\s+(?:me|us|it|them|the\s+team)|(?:by|via|over|through)\s+e-?mail|"
    r"send\s+(?:me\s+|us\s+)?an?\s+e-?mail|(?:to|in)\s+my\s+inbox)\b",
    re.I,
)
_SLACK_PHRASE = re.compile(r"\b(?:to|in|on|into|via)\s+(?:the\s+|our\s+)?slack\b", re.I)
_ON_THE_ISSUE = (
    r"\s+on\s+(?:the\s+|each\s+|every\s+|that\s+)?(?:github\s+)?(?:issues?|prs?|pull\s+requests?)"
)
_GITHUB_COMMENT = re.compile(
    rf"\b(?:(?:comment|reply|respond){_ON_THE_ISSUE}|"
    rf"(?:leave|post|add|write)\s+an?\s+(?:github\s+)?comment(?:{_ON_THE_ISSUE})?|"
    r"as\s+an?\s+(?:github\s+)?comment)\b",
    re.I,
)
_CLAUSE_BREAK = re.compile(r"[.;!?,()]|\b(?:and|then|but|or)\b", re.I)
_DELIVERY = re.compile(
    r"\b(?:post(?:s|ed|ing)?|send(?:s|ing)?|share|drop|put|write|notify|ping|alert|deliver|"
    r"forward|publish|e-?mail|mail|dm|tell|report|reply|respond)\b",
    re.I,
)
_WATCH = re.compile(r"\b(?:watch|monitor|read|scan|check|follow|listen|track|triage|look)\w*", re.I)
_FROM_END = re.compile(r"\b(?:from|of|about|for|by)\s+(?:(?:the|our|my)\s+)?$", re.I)
_TO_END = re.compile(r"\b(?:to|in|into|on|at|via)\s+(?:(?:the|our|my|a|slack|channel)\s+)*$", re.I)
# Mentions of the destination's own platform this close to it are part of the destination.
_NEAR = 25


_Spans = list[tuple[int, int]]


def _overlaps(span: tuple[int, int], spans: _Spans) -> bool:
    return any(span[0] < end and start < span[1] for start, end in spans)


@dataclass
class _Candidate:
    score: int
    start: int
    end: int
    kind: str
    target: str | None = None


def _score(text: str, start: int, preposition: bool = False) -> int:
    clause = _CLAUSE_BREAK.split(text[max(0, start - 120) : start])[-1]
    if _FROM_END.search(clause):
        return 0
    if _DELIVERY.search(clause):
        return 2
    if _WATCH.search(clause):
        return 0
    return 1 if preposition or _TO_END.search(clause) else 0


def _destination_candidates(text: str) -> list[_Candidate]:
    found = []
    for match in _CHANNEL.finditer(text):
        if re.search(r"[A-Za-z]", match.group(1)):
            channel = "#" + match.group(1).lower()
            found.append(_Candidate(_score(text, match.start()), *match.span(), "slack", channel))
    if "@" in text:
        for match in _EMAIL_ADDRESS.finditer(text):
            found.append(
                _Candidate(_score(text, match.start()), *match.span(), "email", match.group(0))
            )
    for match in _DIRECT_MESSAGE.finditer(text):
        # "DM me" is itself the delivery; "a Slack DM" depends on the verb before it.
        score = 2 if match.group("me") else _score(text, match.start(), preposition=True)
        found.append(_Candidate(score, *match.span(), "slack_dm"))
    for match in _SLACK_PHRASE.finditer(text):
        found.append(
            _Candidate(_score(text, match.start(), preposition=True), *match.span(), "slack")
        )
    for pattern, kind in (
        (_CHAT, "chat"),
        (_EMAIL_ME, "email"),
        (_GITHUB_COMMENT, "github_comment"),
    ):
        found.extend(_Candidate(2, *match.span(), kind) for match in pattern.finditer(text))
    return [candidate for candidate in found if candidate.score > 0]


def _destination_value(kind: str, target: str | None) -> dict[str, Any]:
    destination = catalog.find(catalog.DESTINATIONS, kind)
    key = destination.target if isinstance(destination, catalog.Destination) else None
    value: dict[str, Any] = {"kind": kind}
    if key and target:
        value[key] = target
    return value


# --- Platforms -----------------------------------------------------------------------------


def _word_pattern(word: str) -> re.Pattern[str]:
    body = r"[\s-]+".join(re.escape(part) for part in word.split())
    if word[:1].isupper():
        return re.compile(rf"(?<![\w-]){body}s?(?![\w-])(?!\s+(?:of|end|desk|door|page|line)\b)")
    return re.compile(rf"(?<![\w-]){body}s?(?![\w-])", re.I)


_PLATFORM_WORDS: list[tuple[str, bool, bool, re.Pattern[str]]] = [
    (platform.value, generic, word[:1].isupper(), _word_pattern(word))
    for platform in catalog.PLATFORMS
    for generic, words in ((False, platform.words), (True, platform.generic_words))
    for word in words
]


# A destination that lives on a platform: "a Slack DM" does not make Slack the source.
_DESTINATION_PLATFORM = {"slack_dm": "slack"}
# Platform words a typo is matched against; short or everyday words ("front") are left out.
_FUZZY_WORDS = {
    "zendesk": "zendesk",
    "intercom": "intercom",
    "freshdesk": "freshdesk",
    "helpscout": "helpscout",
    "github": "github",
    "slack": "slack",
    "gmail": "email",
    "frontapp": "front",
}
_FUZZY_CUTOFF = 0.85
_FUZZY_MIN_LENGTH = 5
_WORD = re.compile(r"[A-Za-z][A-Za-z-]*")


def suggest_platform(text: str, masked: _Spans) -> tuple[str, str] | None:
    """Return (typed word, platform) for the first word that looks like a misspelt platform."""
    for match in _WORD.finditer(text):
        word = match.group(0).lower().replace("-", "")
        if len(word) < _FUZZY_MIN_LENGTH or _overlaps(match.span(), masked):
            continue
        close = difflib.get_close_matches(word, _FUZZY_WORDS, n=1, cutoff=_FUZZY_CUTOFF)
        if close and word.rstrip("s") not in _FUZZY_WORDS:
            return match.group(0), _FUZZY_WORDS[close[0]]
    return None


def _starts_sentence(text: str, start: int) -> bool:
    before = text[max(0, start - 20) : start].rstrip()
    return not before or before[-1] in ".!?:"


def _find_platforms(text: str, masked: _Spans, near: tuple[int, int, str] | None) -> list[str]:
    """Return the source platforms mentioned, in order of first mention."""
    hits = []
    for value, generic, proper, pattern in _PLATFORM_WORDS:
        for match in pattern.finditer(text):
            start, end = match.span()
            if proper and _starts_sentence(text, start):
                continue
            if _overlaps((start, end), masked):
                continue
            if near and value == _DESTINATION_PLATFORM.get(near[2], near[2]):
                if near[0] - _NEAR <= start <= near[1] + _NEAR:
                    continue
            hits.append((start, -(end - start), end, value, generic))
    taken: list[tuple[int, int, str, bool]] = []
    for start, _, end, value, generic in sorted(hits):
        if not taken or start >= taken[-1][1]:
            taken.append((start, end, value, generic))
    if any(not generic for *_, generic in taken):
        taken = [hit for hit in taken if not hit[3]]
    return list(dict.fromkeys(value for _, _, value, _ in taken))


# --- Name and purpose ----------------------------------------------------------------------

_STRONG_ADJECTIVES = (
    "urgent|unanswered|stale|overdue|unassigned|critical|escalated|high-priority|"
    "high priority|negative|failed|failing|vip|angry"
)
_OBJECT = re.compile(
    rf"(?<![\w-])(?:(?:new|incoming|recent|open|{_STRONG_ADJECTIVES})\s+){{0,2}}(?:[\w-]+\s+)?"
    r"(tickets?|issues?|pull\s+requests?|prs?|conversations?|emails?|messages?|mentions?|"
    r"chats?|bugs?|incidents?|alerts?|invoices?|complaints?|refunds?)\b",
    re.I,
)
_ADJECTIVE = re.compile(rf"\b({_STRONG_ADJECTIVES})\b", re.I)
_ROLES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.I), role)
    for pattern, role in (
        (r"\b(?:watch|monitor|keep\s+an\s+eye\s+on|track|look\s+out\s+for)\w*", "watcher"),
        (r"\b(?:summar|digest|recap|round[\s-]?up)\w*", "digest"),
        (r"\b(?:triag|prioriti[sz])\w*", "triage"),
        (r"\b(?:repl(?:y|ies)|respond|answer|draft\s+repl)\w*", "responder"),
        (r"\b(?:label|categori[sz]|classif)\w*", "labeler"),
        (r"\breview\w*", "reviewer"),
        (r"\bremind\w*", "reminder"),
        (r"\bescalat\w*", "escalator"),
        (r"\breport\w*", "reporter"),
        (r"\bcheck\w*", "checker"),
    )
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _first_match(pattern: re.Pattern[str], text: str, masked: _Spans) -> re.Match[str] | None:
    """Return the first match that is not part of a destination phrase."""
    return next((m for m in pattern.finditer(text) if not _overlaps(m.span(), masked)), None)


def _subject(text: str, masked: _Spans) -> str | None:
    """Return what the agent works on, e.g. "urgent-ticket" or "issue"."""
    match = _first_match(_OBJECT, text, masked)
    if match is None:
        return None
    noun = " ".join(match.group(1).lower().split())
    noun = "PR" if noun in ("pr", "prs") else noun.removesuffix("s")
    adjective = _ADJECTIVE.search(match.group(0))
    if adjective is None:
        return noun
    adjective_text = "-".join(adjective.group(1).lower().split())
    joiner = " " if "-" in adjective_text else "-"
    return f"{adjective_text}{joiner}{noun.replace(' ', '-')}"


def _role(text: str, masked: _Spans) -> str | None:
    found = [
        (m.start(), role) for pattern, role in _ROLES if (m := _first_match(pattern, text, masked))
    ]
    return min(found)[1] if found else None


def derive_name(platform: str | None, subject: str | None, role: str | None) -> str | None:
    """Return a short title such as "Zendesk urgent-ticket watcher", or None."""
    if not (platform or subject or role):
        return None
    parts = []
    source = catalog.find(catalog.PLATFORMS, platform)
    # "Urgent-email digest", not "Email urgent-email digest".
    if source is not None and not (subject and subject.endswith(source.value)):
        parts.append(source.title)
    if subject:
        parts.append(subject)
    parts.append(role or "assistant")
    name = " ".join(parts)
    return _truncate(name[0].upper() + name[1:], MAX_NAME_CHARS)


def purpose_from(text: str) -> str | None:
    """Return the first sentence of the text, tidied into one line, or None if it has no words."""
    sentence = _SENTENCE_END.split(text.strip(), maxsplit=1)[0].strip(" \"'“”‘’")
    if not re.search(r"[^\W\d_]", sentence):
        return None
    sentence = _truncate(sentence, MAX_PURPOSE_CHARS, ellipsis="…")
    sentence = sentence[0].upper() + sentence[1:]
    return sentence if sentence[-1] in ".!?…" else sentence + "."


def instructions_from(text: str) -> str:
    """Return agent instructions built from the cleaned description."""
    return f"{_truncate(text, MAX_INSTRUCTIONS_CHARS, ellipsis='…')}\n\n{ASK_INSTEAD}"


def _or(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


# --- Putting it together -------------------------------------------------------------------


def extract(description: str) -> AgentDraft:
    """Return a draft agent configuration inferred from a free-text description."""
    text, redacted = clean_description(description)
    draft = AgentDraft(redacted=redacted)

    candidates = _destination_candidates(text)
    chosen = max(candidates, key=lambda c: (c.score, -c.start), default=None)
    near = None
    if chosen is not None:
        target = chosen.target or next(
            (c.target for c in candidates if c.kind == chosen.kind and c.target), None
        )
        value = _destination_value(chosen.kind, target)
        destination = catalog.find(catalog.DESTINATIONS, chosen.kind)
        needs_target = isinstance(destination, catalog.Destination) and destination.target
        if (needs_target and not target) or (chosen.kind == "slack_dm" and not _SLACK.search(text)):
            draft.proposed["destination"] = value
        else:
            draft.destination = value
        near = (chosen.start, chosen.end, chosen.kind)
    masked = [(c.start, c.end) for c in candidates]

    platforms = _find_platforms(text, masked, near)
    suggestion = None if platforms else suggest_platform(text, masked)
    if len(platforms) == 1:
        draft.platform = platforms[0]
    elif len(platforms) > 1:
        draft.platform_candidates = platforms
    elif suggestion is not None:
        typed, platform = suggestion
        title = catalog.find(catalog.PLATFORMS, platform).title  # type: ignore[union-attr]
        draft.proposed["platform"] = platform
        draft.errors["platform"] = f"I don't know “{typed}”. Did you mean {title}?"

    draft.trigger, proposed_trigger, schedule_note = read_schedule(text)
    if proposed_trigger is not None:
        draft.proposed["trigger"] = proposed_trigger
    if schedule_note is not None:
        draft.errors["trigger"] = schedule_note
    zones = find_timezones(text)
    if len(zones) == 1:
        draft.timezone = zones[0]
    elif zones:
        draft.timezone_candidates = list(zones)
        titles = [catalog.timezone_title(zone) for zone in zones]
        draft.errors["timezone"] = f"The time zone you named can mean {_or(titles)} time."

    subject, role = _subject(text, masked), _role(text, masked)
    guessed_platform = draft.platform or draft.proposed.get("platform")
    name = derive_name(guessed_platform, subject, role)
    signals = [draft.platform, subject, role]
    if sum(signal is not None for signal in signals) >= 2 and draft.platform == guessed_platform:
        draft.name = name
    elif name:
        draft.proposed["name"] = name

    understood = any(
        [platforms, suggestion, subject, role, draft.trigger, proposed_trigger, zones, chosen]
    )
    purpose = purpose_from(text)
    if understood and purpose:
        draft.purpose = purpose
        draft.instructions = instructions_from(text)
    elif purpose and len(text.split()) >= 3:
        draft.proposed["purpose"] = purpose

    destination_kind = draft.destination["kind"] if draft.destination else None
    draft.tools = catalog.tools_for(draft.platform, destination_kind)
    draft.missing = missing_slots(draft)
    return draft

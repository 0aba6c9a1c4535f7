"""Turn a free-text agent description into an AgentDraft, deterministically and without an LLM.

The extractor fills a slot only when the description says it plainly. Anything unclear is
listed in `missing`, in the order the wizard should ask, and where a sensible default exists it
is offered in `proposed` so the question can pre-fill it ("every morning" proposes 09:00 but
still asks). It never raises, whatever the string.

Decisions worth knowing:
- "every N hours" becomes `every_n_minutes` with N * 60 minutes ("every hour" is `hourly`), so
  the cadence is kept exactly; intervals outside 5..1440 minutes are asked about.
- An interval wins over a calendar word: "every 15 minutes on weekdays" runs every 15 minutes.
- A clock time with no cadence ("at 17:30") proposes a daily run rather than assuming one.
- A bare hour after "at" is read on the 24-hour clock ("at 8" is 08:00) unless the text says
  afternoon, evening or night ("every evening at 7" is 19:00).
- Timezone is only asked for schedules that fire at a clock time (or while the schedule is
  still unknown); an interval agent uses UTC.
"""

from __future__ import annotations

import copy
import re
import unicodedata
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from elicitation.secrets import redact_secrets
from playground.onboarding import catalog

MAX_DESCRIPTION_CHARS = 10_000
MAX_NAME_CHARS = 80
MAX_PURPOSE_CHARS = 200
MAX_INSTRUCTIONS_CHARS = 4_000
MIN_MINUTES = 5
MAX_MINUTES = 1440
DEFAULT_TIME = "09:00"
DEFAULT_DAY = "monday"
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
    destination: dict[str, Any] | None = None
    tools: list[str] = field(default_factory=lambda: list(catalog.ALWAYS_TOOLS))
    missing: list[str] = field(default_factory=list)
    proposed: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    redacted: bool = False

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


# --- Times and schedules -------------------------------------------------------------------

_NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "ten": 10,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "forty-five": 45,
    "sixty": 60,
    "ninety": 90,
}
_NUMBER = r"(\d{1,5}|" + "|".join(_NUMBER_WORDS) + r")"

_TIME_12H = re.compile(r"\b(\d{1,2})(?:[:.](\d{2}))?\s*([ap])\.?\s?m\b\.?", re.I)
_TIME_24H = re.compile(r"(?<![\d:.])(\d{1,2}):(\d{2})(?![\d:])(?!\s*[ap]\.?\s?m\b)", re.I)
_TIME_AT_HOUR = re.compile(
    r"\bat\s+(\d{1,2})(?:\s*o'?clock\b)?(?!\d|[:.]\d)"
    r"(?!\s*(?:[ap]\.?\s?m\b|min|hour|hr|h\b|%|percent|tickets?|issues?|items?|times?))",
    re.I,
)
_TIME_OCLOCK = re.compile(r"\b(\d{1,2})\s*o'?clock\b", re.I)
_TIME_NAMED = re.compile(r"\b(noon|midday|midnight)\b", re.I)
_LATER_IN_DAY = re.compile(r"\b(?:afternoons?|evenings?|nights?|nightly|tonight)\b", re.I)

_PART_OF_DAY: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"\b(?:end of (?:the )?(?:work(?:ing )?)?day|eod|close of business)\b", re.I),
        "17:00",
    ),
    (re.compile(r"\bmornings?\b", re.I), "09:00"),
    (re.compile(r"\bafternoons?\b", re.I), "14:00"),
    (re.compile(r"\b(?:evenings?|tonight)\b", re.I), "18:00"),
    (re.compile(r"\b(?:nights?|nightly)\b", re.I), "22:00"),
)

_ON_DEMAND = re.compile(
    r"\b(?:on[\s-]demand|on request|manually|(?:only\s+)?when(?:ever)?\s+(?:i|we|someone)\s+"
    r"(?:asks?|tells?|says?|requests?|triggers?)|when asked)\b",
    re.I,
)
_EVERY_N_MINUTES = re.compile(rf"\bevery\s+{_NUMBER}\s*-?\s*(?:minutes?|mins?)\b", re.I)
_EVERY_N_HOURS = re.compile(rf"\bevery\s+{_NUMBER}\s*-?\s*(?:hours?|hrs?)\b", re.I)
_QUARTER_HOUR = re.compile(
    r"\b(?:every\s+(?:a\s+)?quarter[\s-]+(?:of\s+an\s+)?hour|quarter[\s-]+hourly)\b", re.I
)
_HALF_HOUR = re.compile(
    r"\b(?:every\s+half[\s-]+(?:an\s+)?hour|half[\s-]+hourly|twice\s+an\s+hour)\b", re.I
)
_EVERY_MINUTE = re.compile(r"\bevery\s+minute\b", re.I)
_HOURLY = re.compile(
    r"\b(?:hourly|every\s+hour|each\s+hour|once\s+(?:an|per|every)\s+hour)\b", re.I
)
_WEEKDAYS = re.compile(
    r"\b(?:week\s?days?|work\s?days?|(?:every|each|on)\s+(?:business|working)\s+days?|"
    r"monday\s*(?:to|through|thru|until|-|–)\s*friday|mon\s*(?:to|-|–)\s*fri)\b",
    re.I,
)
_DAY = re.compile(r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b", re.I)
_WEEKLY = re.compile(r"\b(?:weekly|once\s+(?:a|per|every)\s+week|every\s+week|each\s+week)\b", re.I)
_DAILY = re.compile(
    r"\b(?:daily|every\s?day|each\s+day|once\s+(?:a|per)\s+day|nightly|mornings|evenings|"
    r"(?:every|each)\s+(?:morning|afternoon|evening|night)|in\s+the\s+(?:morning|afternoon|evening)|"
    r"end\s+of\s+(?:the\s+)?(?:work(?:ing\s+)?)?day|eod)\b",
    re.I,
)


def _hhmm(hour: int, minute: int) -> str | None:
    if 0 <= hour <= 23 and 0 <= minute <= 59:
        return f"{hour:02d}:{minute:02d}"
    return None


def _time_from(match: re.Match[str], text: str) -> str | None:
    pattern = match.re
    if pattern is _TIME_NAMED:
        return "00:00" if match.group(1).lower() == "midnight" else "12:00"
    hour = int(match.group(1))
    if pattern is _TIME_12H:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if match.group(3).lower() == "p" else 0)
        return _hhmm(hour, int(match.group(2) or 0))
    if pattern is _TIME_24H:
        return _hhmm(hour, int(match.group(2)))
    if 1 <= hour < 12 and _LATER_IN_DAY.search(text):
        hour += 12
    return _hhmm(hour, 0)


def parse_time(text: str) -> str | None:
    """Return the first clock time in the text as "HH:MM" (24-hour), or None."""
    if not isinstance(text, str):
        return None
    found: list[tuple[int, str]] = []
    for pattern in (_TIME_NAMED, _TIME_12H, _TIME_24H, _TIME_AT_HOUR, _TIME_OCLOCK):
        for match in pattern.finditer(text):
            value = _time_from(match, text)
            if value is not None:
                found.append((match.start(), value))
                break
    if not found:
        return None
    return min(found)[1]


def _number(word: str) -> int:
    return _NUMBER_WORDS.get(word.lower()) or int(word)


def _interval(text: str) -> dict[str, Any] | None:
    if match := _EVERY_N_MINUTES.search(text):
        return {"kind": "every_n_minutes", "minutes": _number(match.group(1))}
    if _QUARTER_HOUR.search(text):
        return {"kind": "every_n_minutes", "minutes": 15}
    if _HALF_HOUR.search(text):
        return {"kind": "every_n_minutes", "minutes": 30}
    if _EVERY_MINUTE.search(text):
        return {"kind": "every_n_minutes", "minutes": 1}
    if match := _EVERY_N_HOURS.search(text):
        hours = _number(match.group(1))
        if hours == 1:
            return {"kind": "hourly"}
        return {"kind": "every_n_minutes", "minutes": hours * 60}
    if _HOURLY.search(text):
        return {"kind": "hourly"}
    return None


def _find_trigger(text: str) -> tuple[dict[str, Any] | None, dict[str, Any] | None, str | None]:
    """Return (trigger, proposed trigger, error) found in the text."""
    if _ON_DEMAND.search(text):
        return {"kind": "on_demand"}, None, None
    interval = _interval(text)
    if interval is not None:
        minutes = interval.get("minutes")
        if minutes is not None and not MIN_MINUTES <= minutes <= MAX_MINUTES:
            clamped = min(max(minutes, MIN_MINUTES), MAX_MINUTES)
            error = f"The agent can run every {MIN_MINUTES} to {MAX_MINUTES} minutes."
            return None, {"kind": "every_n_minutes", "minutes": clamped}, error
        return interval, None, None

    day = None
    if _WEEKDAYS.search(text):
        kind = "weekdays"
    elif match := _DAY.search(text):
        kind, day = "weekly", match.group(1).lower()
    elif _WEEKLY.search(text):
        kind = "weekly"
    elif _DAILY.search(text):
        kind = "daily"
    else:
        kind = None

    time = parse_time(text)
    if kind is None:
        return None, ({"kind": "daily", "time": time} if time else None), None
    trigger: dict[str, Any] = {"kind": kind}
    if kind == "weekly":
        trigger["day"] = day or DEFAULT_DAY
    trigger["time"] = time or _part_of_day(text) or DEFAULT_TIME
    if time is None or (kind == "weekly" and day is None):
        return None, trigger, None
    return trigger, None, None


def _part_of_day(text: str) -> str | None:
    return next((time for pattern, time in _PART_OF_DAY if pattern.search(text)), None)


# --- Time zones ----------------------------------------------------------------------------

# Abbreviations are matched case-sensitively ("ET", not "et"); names are not.
_TZ_ABBREVIATIONS: dict[str, str] = {
    "UTC": "UTC",
    "GMT": "UTC",
    "BST": "Europe/London",
    "WET": "Europe/Lisbon",
    "CET": "Europe/Berlin",
    "CEST": "Europe/Berlin",
    "EET": "Europe/Helsinki",
    "EEST": "Europe/Helsinki",
    "SAST": "Africa/Johannesburg",
    "IST": "Asia/Kolkata",
    "SGT": "Asia/Singapore",
    "JST": "Asia/Tokyo",
    "KST": "Asia/Seoul",
    "AEST": "Australia/Sydney",
    "AEDT": "Australia/Sydney",
    "NZST": "Pacific/Auckland",
    "NZDT": "Pacific/Auckland",
    "ET": "America/New_York",
    "EST": "America/New_York",
    "EDT": "America/New_York",
    "CT": "America/Chicago",
    "CST": "America/Chicago",
    "CDT": "America/Chicago",
    "MT": "America/Denver",
    "MST": "America/Denver",
    "MDT": "America/Denver",
    "PT": "America/Los_Angeles",
    "PST": "America/Los_Angeles",
    "PDT": "America/Los_Angeles",
}
_TZ_NAMES: dict[str, tuple[str, ...]] = {
    "UTC": ("utc", "gmt", "zulu"),
    "Europe/London": ("london", "uk time", "british time"),
    "Europe/Dublin": ("dublin", "ireland", "irish time"),
    "Europe/Lisbon": ("lisbon", "portugal"),
    "Europe/Paris": ("paris", "france", "french time"),
    "Europe/Berlin": ("berlin", "germany", "german time", "cet", "central european", "munich"),
    "Europe/Amsterdam": ("amsterdam", "netherlands", "dutch time"),
    "Europe/Madrid": ("madrid", "barcelona", "spain"),
    "Europe/Stockholm": ("stockholm", "sweden"),
    "Europe/Warsaw": ("warsaw", "poland"),
    "Europe/Helsinki": ("helsinki", "finland"),
    "Europe/Istanbul": ("istanbul", "turkey"),
    "Africa/Johannesburg": ("johannesburg", "cape town", "south africa"),
    "Asia/Dubai": ("dubai", "abu dhabi", "uae"),
    "Asia/Kolkata": ("india", "indian time", "mumbai", "delhi", "bangalore", "bengaluru"),
    "Asia/Singapore": ("singapore",),
    "Asia/Shanghai": ("china", "beijing", "shanghai"),
    "Asia/Tokyo": ("tokyo", "japan", "japanese time"),
    "Asia/Seoul": ("seoul", "korea"),
    "Australia/Sydney": ("sydney", "melbourne"),
    "Pacific/Auckland": ("auckland", "new zealand"),
    "America/Sao_Paulo": ("são paulo", "sao paulo", "brazil"),
    "America/New_York": ("new york", "nyc", "boston", "toronto", "eastern time", "us eastern"),
    "America/Chicago": ("chicago", "dallas", "central time", "us central"),
    "America/Denver": ("denver", "mountain time", "us mountain"),
    "America/Los_Angeles": (
        "los angeles",
        "san francisco",
        "seattle",
        "pacific",
        "us pacific",
        "bay area",
    ),
}


def _tz_patterns() -> list[tuple[re.Pattern[str], str]]:
    patterns = []
    for option in catalog.TIMEZONES:
        names = [option.value, *_TZ_NAMES.get(option.value, ())]
        body = "|".join(r"[\s-]+".join(map(re.escape, name.split())) for name in names)
        if option.value == "America/New_York":
            body += r"|eastern(?!\s+europe)"
        patterns.append((re.compile(rf"(?<![\w/])(?:{body})(?![\w/])", re.I), option.value))
    body = "|".join(map(re.escape, _TZ_ABBREVIATIONS))
    patterns.append((re.compile(rf"(?<![\w/])(?:{body})(?![\w/])"), ""))
    return patterns


_TZ_PATTERNS = _tz_patterns()


def find_timezone(text: str) -> str | None:
    """Return the curated IANA zone the text mentions first ("Berlin time", "9am ET"), or None."""
    found: list[tuple[int, str]] = []
    for pattern, zone in _TZ_PATTERNS:
        if match := pattern.search(text):
            found.append((match.start(), zone or _TZ_ABBREVIATIONS[match.group(0)]))
    return min(found)[1] if found else None


# --- Destinations --------------------------------------------------------------------------

_CHANNEL = re.compile(r"(?<![\w#&])#([A-Za-z0-9][\w-]{0,79})")
_EMAIL_ADDRESS = re.compile(
    r"(?<![\w.%+-])[\w.%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"
)
_CHAT = re.compile(
    r"\b(?:(?:reply|respond|answer|tell me|show me|report back|post it|send it)\s+here|"
    r"(?:here\s+)?in\s+(?:this|the)\s+chat|here\s+in\s+chat)\b",
    re.I,
)
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
            if near and value == near[2] and near[0] - _NEAR <= start <= near[1] + _NEAR:
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
        if isinstance(destination, catalog.Destination) and destination.target and not target:
            draft.proposed["destination"] = value
        else:
            draft.destination = value
        near = (chosen.start, chosen.end, chosen.kind)
    masked = [(c.start, c.end) for c in candidates]

    platforms = _find_platforms(text, masked, near)
    if len(platforms) == 1:
        draft.platform = platforms[0]
    elif len(platforms) > 1:
        draft.platform_candidates = platforms

    draft.trigger, proposed_trigger, trigger_error = _find_trigger(text)
    if proposed_trigger is not None:
        draft.proposed["trigger"] = proposed_trigger
    if trigger_error is not None:
        draft.errors["trigger"] = trigger_error
    draft.timezone = find_timezone(text)

    subject, role = _subject(text, masked), _role(text, masked)
    name = derive_name(draft.platform, subject, role)
    signals = [draft.platform, subject, role]
    if sum(signal is not None for signal in signals) >= 2:
        draft.name = name
    elif name:
        draft.proposed["name"] = name

    understood = any(
        [platforms, subject, role, draft.trigger, proposed_trigger, draft.timezone, chosen]
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

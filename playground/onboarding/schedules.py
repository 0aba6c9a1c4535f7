"""The schedule model: read a schedule from a description, check one field by field, say it.

A schedule ("trigger") is a dict with a `kind` from `catalog.TRIGGERS` and the keys listed
there. Reading text, a schedule is filled only when the text says all of it; a partial or
guessed one is returned as a proposal for the wizard to ask about, and a schedule the model
cannot express ("every other day", "the first Monday of each month") is never rounded to one
it can: it comes back with a note saying so, and the wizard asks.

Decisions worth knowing:
- "every N hours" becomes `every_n_minutes` with N * 60 minutes ("every hour" is `hourly`), so
  the cadence is kept exactly; intervals outside 5..1440 minutes are asked about.
- An interval wins over a calendar word: "every 15 minutes on weekdays" runs every 15 minutes.
- A clock time with no cadence ("at 17:30") proposes the time and asks how often.
- A bare hour after "at" is read on the 24-hour clock ("at 8" is 08:00) unless the text says
  afternoon, evening or night ("every evening at 7" is 19:00). A bare hour after "and"
  ("at 9 and 5") is only proposed: the text does not say which 5.
- "every other Monday", "every 2 weeks", "fortnightly" are every two weeks; "biweekly" can also
  mean twice a week, so it is asked. "twice a week" needs its two days named.
- Monthly runs on a day up to the 28th, the first or last weekday, or the last day; the 29th
  to 31st are asked about, since not every month has them, and so is a day no month has.
- A date of the year ("every 31st of February", "on 3 March"), a clock time no day has
  ("25:00", "13pm") and "every 30 seconds" are asked about with the reason, never dropped.
- "weekends" are Saturday and Sunday.
- A time typed into a form field may be written as the description would ("9am", "16:30",
  "noon", a bare hour on the 24-hour clock), several of them as a list ("9am and 5pm",
  "8, 13:00 and 18:00"); see TIME_PATTERN and TIMES_PATTERN.
"""

from __future__ import annotations

import re
from typing import Any

from playground.onboarding import catalog

MIN_MINUTES = 5
MAX_MINUTES = 1440
MIN_WEEKS = 2
MAX_WEEKS = 12
MAX_TIMES = 12
DEFAULT_TIME = "09:00"
DEFAULT_TIMES = ["09:00", "17:00"]
# A clock time typed into a field, as a description may say it: "16:00", "9", "9.30", "4pm",
# "12:30 p.m.", "noon". A bare hour is on the 24-hour clock.
_CLOCK_ITEM = (
    r"(?:(?:0?[1-9]|1[0-2])(?:[:.][0-5][0-9])?\s*[AaPp]\.?\s?[Mm]\.?"
    r"|(?:[01]?[0-9]|2[0-3])(?:[:.][0-5][0-9])?(?![0-9])|[Nn]oon|[Mm]idday|[Mm]idnight)"
)
TIME_PATTERN = rf"^\s*{_CLOCK_ITEM}\s*$"
# Several of them in one field: "09:00, 16:00", "9am and 5pm", "8, 13:00 and 18:00".
_CLOCK_SEPARATOR = r"(?:\s*,\s*(?:and\s+)?|\s*;\s*|\s+and\s+|\s*&\s*|\s+)"
TIMES_PATTERN = rf"^\s*{_CLOCK_ITEM}(?:{_CLOCK_SEPARATOR}{_CLOCK_ITEM})*\s*$"

# Reading a schedule returns (complete trigger, proposal to ask about, note to say first).
Reading = tuple[dict[str, Any] | None, dict[str, Any] | None, str | None]

# --- Clock times ---------------------------------------------------------------------------

_NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "eight": 8,
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
_NOT_A_CLOCK = r"(?!\s*(?:[ap]\.?\s?m\b|min|hour|hr|h\b|%|percent|tickets?|issues?|items?|times?))"
_TIME_AT_HOUR = re.compile(
    rf"\bat\s+(\d{{1,2}})(?:\s*o'?clock\b)?(?!\d|[:.]\d){_NOT_A_CLOCK}", re.I
)
_TIME_OCLOCK = re.compile(r"\b(\d{1,2})\s*o'?clock\b", re.I)
_TIME_NAMED = re.compile(r"\b(noon|midday|midnight)\b", re.I)
# "9am and 5": a bare hour listed after a clock time.
_AND_HOUR = re.compile(
    rf"\s*(?:,\s*(?:and\s+)?|\s+and\s+|\s*&\s*)(\d{{1,2}})(?![\d:.]){_NOT_A_CLOCK}"
)
_LATER_IN_DAY = re.compile(r"\b(?:afternoons?|evenings?|nights?|nightly|tonight)\b", re.I)
_CLOCK_PATTERNS = (_TIME_NAMED, _TIME_12H, _TIME_24H, _TIME_AT_HOUR, _TIME_OCLOCK)

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


def find_times(text: str) -> tuple[list[str], bool]:
    """Return the clock times the text names, in text order, and whether all of them are sure.

    A bare hour listed after a time ("at 9 and 5") is a guess (17:00), so it is not sure.
    """
    if not isinstance(text, str):
        return [], True
    found: list[tuple[int, int, str]] = []
    for pattern in _CLOCK_PATTERNS:
        for match in pattern.finditer(text):
            value = _time_from(match, text)
            if value is not None:
                found.append((match.start(), match.end(), value))
    found.sort()
    spans: list[tuple[int, int, str]] = []
    for start, end, value in found:
        if not spans or start >= spans[-1][1]:
            spans.append((start, end, value))
    certain = True
    times: list[str] = []
    for index, (_, end, value) in enumerate(spans):
        times.append(value)
        following = spans[index + 1][0] if index + 1 < len(spans) else len(text)
        if (extra := _AND_HOUR.match(text, end)) and extra.end() <= following:
            hour = int(extra.group(1))
            # A list runs through the day: "9 and 5" is more likely 17:00 than 05:00.
            if hour <= int(value[:2]) and hour + 12 <= 23:
                hour += 12
            if (later := _hhmm(hour, 0)) is not None:
                times.append(later)
                certain = False
    return list(dict.fromkeys(times)), certain


def parse_time(text: str) -> str | None:
    """Return the first clock time in the text as "HH:MM" (24-hour), or None."""
    times, _ = find_times(text)
    return times[0] if times else None


def _part_of_day(text: str) -> str | None:
    return next((time for pattern, time in _PART_OF_DAY if pattern.search(text)), None)


# --- Cadences ------------------------------------------------------------------------------

_ON_DEMAND = re.compile(
    r"\b(?:on[\s-]demand|on request|manually|(?:only\s+)?when(?:ever)?\s+(?:i|we|someone)\s+"
    r"(?:asks?|tells?|says?|requests?|triggers?)|when asked)\b",
    re.I,
)
_EVERY_N_SECONDS = re.compile(rf"\bevery\s+{_NUMBER}\s*-?\s*(?:seconds?|secs?)\b", re.I)
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
_DAY_NAMES = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_DAY = re.compile(rf"\b({_DAY_NAMES})s?\b", re.I)
_WEEKEND = re.compile(r"(?<![#\w-])week-?ends?\b", re.I)  # not "#weekend"
_WEEKLY = re.compile(r"\b(?:weekly|once\s+(?:a|per|every)\s+week|every\s+week|each\s+week)\b", re.I)
_TWICE_A_WEEK = re.compile(
    r"\b(?:twice|two\s+times|2\s*x)\s+(?:a|per|every)\s+week\b|\bsemi-?weekly\b", re.I
)
_DAILY = re.compile(
    r"\b(?:daily|every\s?day|each\s+day|once\s+(?:a|per)\s+day|nightly|mornings|evenings|"
    r"(?:every|each)\s+(?:morning|afternoon|evening|night)|in\s+the\s+(?:morning|afternoon|evening)|"
    r"end\s+of\s+(?:the\s+)?(?:work(?:ing\s+)?)?day|eod)\b",
    re.I,
)
_TIMES_A_DAY = re.compile(
    rf"\b(?:twice|{_NUMBER}\s+times)\s+(?:a|per|each|every)\s+day\b|\btwice\s+daily\b", re.I
)
_OTHER_WEEK = re.compile(
    rf"\b(?:every\s+(?:other|second|alternate)\s+(?:week|{_DAY_NAMES})|"
    rf"(?:on\s+)?alternate\s+(?:weeks|(?:{_DAY_NAMES})s)|(?:every|once\s+a)\s+fortnight|"
    r"fortnightly)\b",
    re.I,
)
_EVERY_N_WEEKS = re.compile(rf"\bevery\s+{_NUMBER}\s*-?\s*weeks?\b", re.I)
_BIWEEKLY = re.compile(r"\bbi-?weekly\b", re.I)

_MONTH = r"(?:each|every|the|a)\s+month"
_MONTHLY = re.compile(r"\b(?:monthly|(?:every|each|once\s+a|once\s+per)\s+month)\b", re.I)
# "on the 15th", "the 1st of each month"; not "3rd-party".
_MONTH_DAY = re.compile(
    rf"\bon\s+the\s+(?P<on>\d{{1,2}})(?:st|nd|rd|th)\b(?![-\w])|"
    rf"\b(?:the\s+)?(?P<of>\d{{1,2}})(?:st|nd|rd|th)\s+(?:day\s+)?of\s+{_MONTH}\b",
    re.I,
)
# "the first (calendar) day of every month", "day 1 of each month", "the start of the month".
_FIRST_OF_MONTH = re.compile(
    rf"\b(?:first(?:\s+calendar)?(?:\s+day)?|start|beginning|day\s+(?:1|one))\s+of\s+{_MONTH}\b",
    re.I,
)
_OF_MONTH = re.compile(rf"\bof\s+{_MONTH}\b", re.I)  # "the 1st day of the month" says monthly
# A table (fmt: skip keeps its rows): pattern, anchor.
_MONTH_ANCHORS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"\bfirst\s+(?:week|business|working|work)\s?day\s+of\s+{_MONTH}\b", re.I),
     "first_weekday"),
    (re.compile(rf"\blast\s+(?:week|business|working|work)\s?day\s+of\s+{_MONTH}\b", re.I),
     "last_weekday"),
    (re.compile(rf"\b(?:last\s+day|end)\s+of\s+{_MONTH}\b|\bmonth-?end\b", re.I), "last_day"),
)  # fmt: skip

# Schedules the model cannot keep: asked about with the reason, never rounded.
_UNSUPPORTED: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(rf"\bevery\s+(?:other|second|{_NUMBER})\s+days?\b", re.I),
        "I can run an agent every day or on set days of the week, not every few days.",
    ),
    (
        re.compile(
            rf"\b(?:first|second|third|fourth|last|1st|2nd|3rd|4th)\s+(?:{_DAY_NAMES})\s+"
            rf"(?:of|in)\s+{_MONTH}\b",
            re.I,
        ),
        "I can run an agent on a day of the month, or its first or last weekday, but not on "
        "a given weekday of the month.",
    ),
    (
        re.compile(r"\b(?:twice\s+a\s+month|semi-?monthly|bi-?monthly)\b", re.I),
        "I can run an agent once a month or every few weeks, not twice a month.",
    ),
    (
        re.compile(
            r"\b(?:quarterly|every\s+quarter(?![\s-]+(?:of\s+an\s+)?hour)|yearly|annually|"
            r"every\s+year|once\s+a\s+year)\b",
            re.I,
        ),
        "I can run an agent at most a month apart, not once a quarter or a year.",
    ),
)


# A date of the year: "the 31st of February", "on 3 March", "every February 31st". "May" only
# capitalised ("you may 2x").
_MONTH_NAME = (
    r"(?:(?i:january|february|march|april|june|july|august|september|october|november|"
    r"december)|May)"
)
_DATE_OF_YEAR = re.compile(
    rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<month>{_MONTH_NAME})\b|"
    rf"\b(?P<month_first>{_MONTH_NAME})\s+(?:the\s+)?(?P<day_after>\d{{1,2}})(?:st|nd|rd|th)?\b"
    r"(?![:.]\d)"
)
_DAYS_IN_MONTH = {"february": 29, "april": 30, "june": 30, "september": 30, "november": 30}


def _date_of_year(text: str) -> str | None:
    """Return why a date of the year ("every 31st of February") cannot be kept, or None."""
    match = _DATE_OF_YEAR.search(text)
    if match is None:
        return None
    day = int(match.group("day") or match.group("day_after"))
    month = (match.group("month") or match.group("month_first")).capitalize()
    if not 1 <= day <= _DAYS_IN_MONTH.get(month.lower(), 31):
        return (
            f"There is no {catalog.ordinal(day)} of {month}, and I can run an agent at most a "
            "month apart, not once a year."
        )
    return (
        f"The {catalog.ordinal(day)} of {month} comes once a year, and I can run an agent at "
        "most a month apart."
    )


def _impossible_time(text: str) -> str | None:
    """Return why a clock time the text writes cannot be kept ("25:00", "13pm"), or None."""
    for pattern in (_TIME_12H, _TIME_24H):
        for match in pattern.finditer(text):
            if _time_from(match, text) is None:
                written = match.group(0).strip()
                return f"“{written}” is not a time of day: give one from 00:00 to 23:59."
    return None


def _number(word: str) -> int:
    return _NUMBER_WORDS.get(word.lower()) or int(word)


def _days(text: str) -> list[str]:
    named = {match.group(1).lower() for match in _DAY.finditer(text)}
    if _WEEKEND.search(text):
        named |= {"saturday", "sunday"}
    return [day for day in catalog.values(catalog.DAYS) if day in named]


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


def _calendar(text: str) -> tuple[dict[str, Any], str | None] | None:
    """Return the calendar cadence the text names (without times) and a note, or None."""
    if match := _EVERY_N_WEEKS.search(text):
        weeks = _number(match.group(1))
        if weeks == 1:
            return {"kind": "weekly", "days": _days(text)}, None
        if not MIN_WEEKS <= weeks <= MAX_WEEKS:
            return {"kind": "every_n_weeks", "days": _days(text)}, (
                f"The agent can run every {MIN_WEEKS} to {MAX_WEEKS} weeks."
            )
        return {"kind": "every_n_weeks", "weeks": weeks, "days": _days(text)}, None
    if _OTHER_WEEK.search(text):
        return {"kind": "every_n_weeks", "weeks": 2, "days": _days(text)}, None
    if _BIWEEKLY.search(text):
        note = "“Biweekly” can mean every two weeks or twice a week."
        return {"weeks": 2, "days": _days(text)}, note
    if _MONTHLY.search(text) or _MONTH_DAY.search(text) or _FIRST_OF_MONTH.search(text):
        return _monthly(text)
    if any(pattern.search(text) for pattern, _ in _MONTH_ANCHORS):
        return _monthly(text)
    if _TWICE_A_WEEK.search(text):
        days = _days(text)
        note = None if len(days) == 2 else "Choose the two days of the week."
        return {"kind": "weekly", "days": days if len(days) == 2 else []}, note
    if _WEEKDAYS.search(text):
        return {"kind": "weekdays"}, None
    if days := _days(text):
        return {"kind": "weekly", "days": days}, None
    if _WEEKLY.search(text):
        return {"kind": "weekly", "days": []}, None
    if _DAILY.search(text) or _TIMES_A_DAY.search(text):
        return {"kind": "daily"}, None
    return None


def _monthly(text: str) -> tuple[dict[str, Any], str | None]:
    # "on the 15th" alone may be a one-off date: the day is kept, how often is asked.
    stated = _MONTHLY.search(text) is not None or _OF_MONTH.search(text) is not None
    trigger: dict[str, Any] = {"kind": "monthly"}
    for pattern, anchor in _MONTH_ANCHORS:
        if pattern.search(text):
            return trigger | {"day_of_month": anchor}, None
    if _FIRST_OF_MONTH.search(text):
        return trigger | {"day_of_month": "1"}, None
    if match := _MONTH_DAY.search(text):
        day = int(match.group("on") or match.group("of"))
        if not stated and match.group("on"):
            trigger = {}
        if 1 <= day <= 28:
            return trigger | {"day_of_month": str(day)}, None
        if day <= 31:
            return trigger | {"kind": "monthly"}, (
                f"Not every month has a {catalog.ordinal(day)}: choose the last day of the "
                "month or a day up to the 28th."
            )
        return trigger | {"kind": "monthly"}, (
            f"No month has a {catalog.ordinal(day)}: choose the last day of the month or a day "
            "up to the 28th."
        )
    return trigger, None


def _with_times(cadence: dict[str, Any], text: str) -> tuple[dict[str, Any], bool, str | None]:
    """Return the cadence with its time(s), whether they were all stated, and a note."""
    times, certain = find_times(text)
    kind = cadence.get("kind")
    count = _TIMES_A_DAY.search(text)
    if len(times) > 1 or count:
        if kind in ("daily", "weekdays"):
            weekdays_only = kind == "weekdays"
            trigger = {
                "kind": "times_a_day",
                "times": sorted(times),
                "weekdays_only": weekdays_only,
            }
            wanted = _times_wanted(count)
            return trigger, certain and len(times) > 1 and wanted in (None, len(times)), None
        if kind is not None and len(times) > 1:
            note = "I can run an agent several times a day, or once on set days, but not both."
            return cadence, False, note
    if times:
        return cadence | {"time": times[0]}, certain, None
    if guess := _part_of_day(text):
        return cadence | {"time": guess}, False, None
    return cadence, False, None


def _times_wanted(count: re.Match[str] | None) -> int | None:
    if count is None:
        return None
    words = count.group(0).lower().split()
    return 2 if words[0] == "twice" else _number(count.group(1))


def read_schedule(text: str) -> Reading:
    """Return (trigger, proposal, note) for the schedule a description states."""
    if _ON_DEMAND.search(text):
        return {"kind": "on_demand"}, None, None
    if _EVERY_N_SECONDS.search(text):
        note = f"The agent can run every {MIN_MINUTES} to {MAX_MINUTES} minutes, not seconds apart."
        return None, {"kind": "every_n_minutes", "minutes": MIN_MINUTES}, note
    interval = _interval(text)
    if interval is not None:
        minutes = interval.get("minutes")
        if minutes is not None and not MIN_MINUTES <= minutes <= MAX_MINUTES:
            clamped = min(max(minutes, MIN_MINUTES), MAX_MINUTES)
            note = f"The agent can run every {MIN_MINUTES} to {MAX_MINUTES} minutes."
            return None, {"kind": "every_n_minutes", "minutes": clamped}, note
        return interval, None, None
    for pattern, note in _UNSUPPORTED:
        if pattern.search(text):
            return None, None, note
    if note := _date_of_year(text):
        return None, None, note

    impossible = _impossible_time(text)
    calendar = _calendar(text)
    if calendar is None:
        # Clock times but no cadence: keep them for the question, ask how often.
        times, _ = find_times(text)
        if len(times) > 1:
            return None, {"times": sorted(times)}, impossible
        return None, ({"time": times[0]} if times else None), impossible
    cadence, note = calendar
    note = note or impossible
    proposal, stated, times_note = _with_times(cadence, text)
    trigger, _, _ = check_trigger(proposal)
    if trigger is not None and stated and note is None and times_note is None:
        return trigger, None, None
    return None, {k: v for k, v in proposal.items() if v not in ([], None)}, note or times_note


# --- Checking a schedule given field by field ---------------------------------------------


def _field_clock(item: str) -> str | None:
    """Return "HH:MM" for one clock time as a field takes it (see TIME_PATTERN)."""
    word = item.strip().lower()
    if word in ("noon", "midday", "midnight"):
        return "00:00" if word == "midnight" else "12:00"
    hour, minute, half = re.fullmatch(r"(\d{1,2})(?:[:.](\d{2}))?\s*([ap])?.*", word).groups()
    hour = int(hour) % 12 + (12 if half == "p" else 0) if half else int(hour)
    return _hhmm(hour, int(minute or 0))


def as_time(value: Any) -> str | None:
    """Return a clock time as "HH:MM" from "9:05", "9", "9am" or "noon"; None if there is none."""
    if not isinstance(value, str) or not value.strip():
        return None
    if re.fullmatch(TIME_PATTERN, value):
        return _field_clock(value)
    return parse_time(value)


def as_int(value: Any) -> int | None:
    """Return a whole number from an int, a whole float or digits; None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def as_times(value: Any) -> list[str] | None:
    """Return the clock times of a list or a field ("9am and 5pm"), sorted; None if unreadable."""
    if isinstance(value, list):
        times = [as_time(item) for item in value]
    elif isinstance(value, str) and re.fullmatch(TIMES_PATTERN, value):
        times = [_field_clock(item) for item in re.findall(_CLOCK_ITEM, value)]
    else:
        return None
    if not times or None in times:
        return None
    return sorted(set(times))  # type: ignore[arg-type]


def _as_days(value: Any) -> list[str]:
    if isinstance(value, str):
        value = [value]
    chosen = set(value) if isinstance(value, list | tuple) else set()
    return [day for day in catalog.values(catalog.DAYS) if day in chosen]


def check_trigger(
    values: dict[str, Any],
) -> tuple[dict[str, Any] | None, dict[str, Any], str | None]:
    """Return (trigger, the valid parts, problem) for a schedule given key by key.

    `values` may hold `kind`, `minutes`, `time`, `times`, `weekdays_only`, `days` (or one
    `day`), `weeks` and `day_of_month`; keys the kind does not use are ignored.
    """
    kind = values.get("kind")
    option = catalog.find(catalog.TRIGGERS, kind)
    if option is None:
        return None, {}, "Choose how often the agent should run."
    parts: dict[str, Any] = {"kind": kind}
    if kind in ("on_demand", "hourly"):
        return parts, parts, None
    if kind == "every_n_minutes":
        count = as_int(values.get("minutes"))
        if count is None or not MIN_MINUTES <= count <= MAX_MINUTES:
            return None, parts, f"Give a number of minutes between {MIN_MINUTES} and {MAX_MINUTES}."
        parts["minutes"] = count
        return dict(parts), parts, None
    if kind == "times_a_day":
        parts["weekdays_only"] = values.get("weekdays_only") is True
        times = as_times(values.get("times"))
        if times is None or not 2 <= len(times) <= MAX_TIMES:
            return (
                None,
                parts,
                (f"Give two to {MAX_TIMES} different times of day, like 09:00, 16:00."),
            )
        parts["times"] = times
        return dict(parts), parts, None

    problem = None
    if kind == "every_n_weeks":
        weeks = as_int(values.get("weeks"))
        if weeks is not None and MIN_WEEKS <= weeks <= MAX_WEEKS:
            parts["weeks"] = weeks
        else:
            problem = f"Give a number of weeks between {MIN_WEEKS} and {MAX_WEEKS}."
    if kind in ("weekly", "every_n_weeks"):
        days = _as_days(values.get("days", values.get("day")))
        if days:
            parts["days"] = days
        else:
            problem = problem or "Choose at least one day of the week."
    if kind == "monthly":
        day = values.get("day_of_month")
        if catalog.find(catalog.MONTH_DAYS, day) is not None:
            parts["day_of_month"] = day
        else:
            problem = "Choose the day of the month."
    clock = as_time(values.get("time"))
    if clock is not None:
        parts["time"] = clock
    elif problem is None:
        problem = f"“{option.title}” needs a time of day, like 09:00."
    if problem:
        return None, parts, problem
    return dict(parts), parts, None


# The keys each kind needs, in the order a problem with them is reported.
NEEDS: dict[str, tuple[str, ...]] = {
    "on_demand": (),
    "hourly": (),
    "every_n_minutes": ("minutes",),
    "daily": ("time",),
    "weekdays": ("time",),
    "times_a_day": ("times",),
    "weekly": ("days", "time"),
    "every_n_weeks": ("weeks", "days", "time"),
    "monthly": ("day_of_month", "time"),
}


def missing_key(parts: dict[str, Any]) -> str:
    """Return the key a partial schedule lacks first ("kind" when even that is unknown)."""
    needs = NEEDS.get(parts.get("kind", ""))
    if needs is None:
        return "kind"
    return next((key for key in needs if key not in parts), needs[-1] if needs else "kind")


# --- In words ------------------------------------------------------------------------------


_DAY_TITLES = {option.value: option.title for option in catalog.DAYS} | {"": ""}
_MONTH_DAY_TITLES = {option.value: option.title.lower() for option in catalog.MONTH_DAYS}


def _list(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def describe_trigger(trigger: dict[str, Any] | None) -> str:
    """Return a schedule in words, e.g. "every weekday at 09:00"; empty if it is incomplete."""
    trigger, _, _ = check_trigger(trigger or {})
    if trigger is None:
        return ""
    kind, time = trigger["kind"], trigger.get("time")
    days = _list([_DAY_TITLES[day] for day in trigger.get("days", [""])])
    if kind == "on_demand":
        return "only when someone asks"
    if kind == "hourly":
        return "every hour"
    if kind == "every_n_minutes":
        return f"every {trigger['minutes']} minutes"
    if kind == "daily":
        return f"every day at {time}"
    if kind == "weekdays":
        return f"every weekday at {time}"
    if kind == "times_a_day":
        when = "every weekday" if trigger["weekdays_only"] else "every day"
        return f"{when} at {_list(trigger['times'])}"
    if kind == "weekly":
        return f"every {days} at {time}"
    if kind == "every_n_weeks":
        every = "every other week" if trigger["weeks"] == 2 else f"every {trigger['weeks']} weeks"
        return f"{every} on {days} at {time}"
    return f"on {_MONTH_DAY_TITLES[trigger['day_of_month']]} of every month at {time}"

"""Recurrences: a schedule as RFC 5545 text, and its slots as instants (python-dateutil's rrule).

A rule is the text of an iCalendar recurrence: a DTSTART line and one or more RRULE lines.

- Interval schedules ("every 15 minutes", "every hour") count elapsed time: their DTSTART is
  in UTC (`DTSTART:20261201T090000Z`), so a change of the clocks neither adds nor drops a run.
- Clock schedules ("every weekday at 09:00") follow local time: their DTSTART names the zone
  (`DTSTART;TZID=Europe/Berlin:20261201T090000`) and the rule is read on the wall clock there.
  A local time the clocks skip runs once, at the first valid instant after it (02:30 on the
  night of spring forward runs at 03:00); a local time the clocks repeat runs once, the first
  time it comes round.

The wizard's triggers (`{"kind": "weekdays", "time": "09:00"}`, see
`playground/onboarding/schedules.py`) become rules with `to_rule`; an agent in code can give
either such a trigger or its own RRULE text.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from dateutil import rrule as rr
from dateutil import tz

DAYS = {
    "monday": "MO",
    "tuesday": "TU",
    "wednesday": "WE",
    "thursday": "TH",
    "friday": "FR",
    "saturday": "SA",
    "sunday": "SU",
}
WEEKDAYS = "MO,TU,WE,TH,FR"
MONTH_DAYS = {
    "first_weekday": f"BYDAY={WEEKDAYS};BYSETPOS=1",
    "last_weekday": f"BYDAY={WEEKDAYS};BYSETPOS=-1",
    "last_day": "BYMONTHDAY=-1",
}
# The longest stretch of wall-clock time a zone has ever skipped or repeated is a day (Samoa,
# 2011): looking this far back from an instant finds every local slot that may fall after it.
FOLD_MARGIN = timedelta(days=1, hours=1)


class RuleError(ValueError):
    """A schedule that cannot be represented as a recurrence rule."""


def zone(name: str) -> ZoneInfo:
    """Return the IANA zone, or raise RuleError."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, TypeError) as error:
        raise RuleError(f"{name!r} is not a time zone") from error


def to_rule(trigger: dict[str, Any], zone_name: str, *, anchor: datetime) -> str:
    """Return the RFC 5545 text of a wizard trigger, "" for one that runs only on demand.

    `anchor` is when the schedule starts (an interval counts from it; "every other week"
    counts weeks from the week it falls in).
    """
    kind = trigger.get("kind")
    if kind == "on_demand":
        return ""
    if kind in ("every_n_minutes", "hourly"):
        minutes = 60 if kind == "hourly" else _positive(trigger.get("minutes"), "minutes")
        local = anchor.astimezone(zone(zone_name))
        # On the (local) hour or the minute: the first run is the next whole one after the anchor.
        start = local.replace(
            minute=0 if kind == "hourly" else local.minute, second=0, microsecond=0
        )
        start = start.astimezone(UTC)
        freq = "HOURLY" if kind == "hourly" else f"MINUTELY;INTERVAL={minutes}"
        return f"DTSTART:{start:%Y%m%dT%H%M%S}Z\nRRULE:FREQ={freq}"
    local_start = anchor.astimezone(zone(zone_name)).replace(tzinfo=None)
    if kind == "times_a_day":
        times = [_clock(value) for value in trigger.get("times") or []]
        if not times:
            raise RuleError("a schedule several times a day needs its times")
        byday = f";BYDAY={WEEKDAYS}" if trigger.get("weekdays_only") else ""
        lines = [f"RRULE:FREQ=DAILY{byday};{_at(time)}" for time in times]
        return _dtstart(zone_name, local_start) + "\n" + "\n".join(lines)
    at = _at(_clock(trigger.get("time")))
    if kind == "daily":
        body = f"FREQ=DAILY;{at}"
    elif kind == "weekdays":
        body = f"FREQ=WEEKLY;BYDAY={WEEKDAYS};{at}"
    elif kind in ("weekly", "every_n_weeks"):
        days = [DAYS[day] for day in trigger.get("days") or [] if day in DAYS]
        if not days:
            raise RuleError("a weekly schedule needs its days")
        interval = ""
        if kind == "every_n_weeks":
            interval = f";INTERVAL={_positive(trigger.get('weeks'), 'weeks')}"
            # Weeks are counted from the Monday of the week the schedule starts in.
            local_start = (local_start - timedelta(days=local_start.weekday())).replace(
                hour=0, minute=0, second=0, microsecond=0
            )
        body = f"FREQ=WEEKLY{interval};WKST=MO;BYDAY={','.join(days)};{at}"
    elif kind == "monthly":
        day = str(trigger.get("day_of_month", ""))
        if day in MONTH_DAYS:
            by = MONTH_DAYS[day]
        elif day.isdigit() and 1 <= int(day) <= 28:
            by = f"BYMONTHDAY={int(day)}"
        else:
            raise RuleError(f"{day!r} is not a day every month has")
        body = f"FREQ=MONTHLY;{by};{at}"
    else:
        raise RuleError(f"{kind!r} is not a schedule")
    return _dtstart(zone_name, local_start) + "\nRRULE:" + body


def check_rule(text: str, zone_name: str) -> str:
    """Return RRULE text given in code (with or without DTSTART) as a whole rule; raise
    RuleError if dateutil cannot read it or it never runs."""
    text = text.strip()
    if "DTSTART" not in text:
        now = datetime.now(UTC).astimezone(zone(zone_name)).replace(tzinfo=None, microsecond=0)
        lines = [line if line.startswith("RRULE:") else f"RRULE:{line}" for line in text.split()]
        text = _dtstart(zone_name, now) + "\n" + "\n".join(lines)
    try:
        _parse(text)
    except (ValueError, TypeError) as error:
        raise RuleError(f"not a recurrence rule: {error}") from error
    if next_slot(text, zone_name, datetime.now(UTC)) is None:
        raise RuleError("this rule never runs again")
    return text


def slots_after(text: str, zone_name: str, after: datetime, count: int) -> list[datetime]:
    """Return the next `count` slots strictly after the instant `after`, as UTC instants."""
    found: list[datetime] = []
    for slot in _slots(text, zone_name, after):
        if slot > after and (not found or slot > found[-1]):
            found.append(slot)
            if len(found) == count:
                break
    return found


def next_slot(text: str, zone_name: str, after: datetime) -> datetime | None:
    """Return the first slot strictly after the instant `after`, or None."""
    slots = slots_after(text, zone_name, after, 1)
    return slots[0] if slots else None


def slots_between(
    text: str, zone_name: str, start: datetime, end: datetime, limit: int = 100_000
) -> list[datetime]:
    """Return the slots at or after `start` and at or before `end` (at most `limit`)."""
    found: list[datetime] = []
    for slot in _slots(text, zone_name, start - timedelta(microseconds=1)):
        if slot > end:
            break
        if slot >= start and (not found or slot > found[-1]):
            found.append(slot)
            if len(found) == limit:
                break
    return found


def _slots(text: str, zone_name: str, after: datetime):
    """Yield the rule's slots from about `after` on, in order, as UTC instants."""
    if not text:
        return
    rule = _parse(text)
    if _elapsed(text):
        yield from (slot.astimezone(UTC) for slot in rule.xafter(after.astimezone(UTC), inc=True))
        return
    place = zone(zone_name)
    wall = after.astimezone(place).replace(tzinfo=None) - FOLD_MARGIN
    for naive in rule.xafter(wall, inc=True):
        yield instant(naive, place)


def instant(naive: datetime, place: ZoneInfo) -> datetime:
    """Return the UTC instant a wall-clock time stands for: the first of a repeated one, the
    first valid instant after a skipped one."""
    first = naive.replace(tzinfo=place, fold=0)
    if tz.datetime_exists(first):
        return first.astimezone(UTC)
    # Skipped: the clocks jumped over it. The jump happened between reading it with the
    # offset after the change (earlier) and with the offset before it (later); find it.
    low = naive.replace(tzinfo=place, fold=1).astimezone(UTC)
    high = first.astimezone(UTC)
    if low > high:
        low, high = high, low
    while high - low > timedelta(seconds=1):
        middle = low + (high - low) / 2
        if middle.astimezone(place).replace(tzinfo=None) >= naive:
            high = middle
        else:
            low = middle
    return high.replace(microsecond=0)


def _parse(text: str) -> rr.rruleset:
    if not _elapsed(text):
        # Read on the wall clock: the zone is applied slot by slot (see `instant`).
        first, _, rest = text.partition("\n")
        text = "DTSTART:" + first.rpartition(":")[2] + "\n" + rest
    return rr.rrulestr(text, forceset=True, cache=False)


def _elapsed(text: str) -> bool:
    first = text.split("\n", 1)[0]
    return first.startswith("DTSTART:") and first.endswith("Z")


def _dtstart(zone_name: str, local: datetime) -> str:
    zone(zone_name)  # the zone must exist
    return f"DTSTART;TZID={zone_name}:{local:%Y%m%dT%H%M%S}"


def _clock(value: Any) -> tuple[int, int]:
    try:
        hour, minute = (int(part) for part in str(value).split(":"))
    except ValueError:
        raise RuleError(f"{value!r} is not a time of day") from None
    if not (0 <= hour <= 23 and 0 <= minute <= 59):
        raise RuleError(f"{value!r} is not a time of day")
    return hour, minute


def _at(time: tuple[int, int]) -> str:
    return f"BYHOUR={time[0]};BYMINUTE={time[1]};BYSECOND=0"


def _positive(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise RuleError(f"a number of {what} must be a whole number above 0")
    return value

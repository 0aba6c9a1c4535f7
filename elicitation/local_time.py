"""Dates and times in a person's own time zone: read from a picker, shown in a picker, read aloud.

Pure Python (zoneinfo), so the contract can use it. A local date-time is converted with the
zone's rules *for that date*, so summer and winter time each get their own offset. A local time
the clocks skip (spring forward) or pass twice (fall back) is refused with a reason, never
shifted silently.
"""

import re
from datetime import UTC, date, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

__all__ = ["LocalTimeError", "from_local", "readable", "to_local", "zone_named"]

# What a datetime-local picker sends: minutes, optionally seconds and a fraction.
_LOCAL = re.compile(r"(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2}(?:\.\d+)?)?")
# An RFC 3339 date-time with its offset.
_INSTANT = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})")


class LocalTimeError(ValueError):
    """A local time that does not name exactly one instant in its zone."""


def zone_named(name: object) -> ZoneInfo:
    """Return the IANA zone of that name, or UTC for anything that is not one."""
    if not isinstance(name, str) or not name or len(name) > 64:
        return ZoneInfo("UTC")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def from_local(text: str, zone: ZoneInfo) -> str:
    """Return a picker's local date-time as RFC 3339 with the zone's offset on that date.

    Text that is not a local date-time (RFC 3339 already, or wrong) comes back unchanged for
    the format check; a skipped or repeated local time raises LocalTimeError.
    """
    match = _LOCAL.fullmatch(text)
    if not match:
        return text
    day, minutes, seconds = match.groups()
    try:
        naive = datetime.fromisoformat(f"{day}T{minutes}{seconds or ''}")
    except ValueError:
        return text  # not a real date: the format check says so
    first, second = naive.replace(tzinfo=zone, fold=0), naive.replace(tzinfo=zone, fold=1)
    if first.utcoffset() != second.utcoffset():
        when = f"{minutes} on {_day(naive.date())}"
        if first.astimezone(UTC).astimezone(zone).replace(tzinfo=None) != naive:
            raise LocalTimeError(
                f"{when} does not exist in {zone.key}: the clocks skip it. Pick another time."
            )
        raise LocalTimeError(
            f"{when} happens twice in {zone.key}, as the clocks go back. "
            "Pick a time outside that hour."
        )
    offset = first.utcoffset() or timedelta()
    if offset.seconds % 60:  # a historic offset in seconds (local mean time): say it in UTC
        return first.astimezone(UTC).isoformat().replace("+00:00", "Z")
    return f"{day}T{minutes}{seconds or ':00'}{_offset(offset)}"


def to_local(instant: str, zone: tzinfo) -> str:
    """Return an RFC 3339 date-time as a picker's local value in the zone ("" if it is not one).

    Seconds (and their fraction) are kept when they are not zero, so an untouched default is
    read back as the same instant.
    """
    moment = _parse_instant(instant)
    if moment is None:
        return ""
    local = moment.astimezone(zone)
    shown = local.strftime("%Y-%m-%dT%H:%M")
    if local.second or local.microsecond:
        shown += local.strftime(":%S")
        fraction = _INSTANT.fullmatch(instant).group(2)
        if local.microsecond and fraction:
            shown += fraction
    return shown


def readable(value: str, zone: tzinfo, *, with_time: bool) -> str:
    """Return a date ("Thu 17 Jul 2031") or an instant ("Thu 17 Jul 2031, 09:45 CEST") to read."""
    if not with_time:
        try:
            return _day(date.fromisoformat(value), weekday=True)
        except ValueError:
            return value
    moment = _parse_instant(value)
    if moment is None:
        return value
    local = moment.astimezone(zone)
    seconds = ":%S" if local.second else ""
    return (
        f"{_day(local.date(), weekday=True)}, {local.strftime(f'%H:%M{seconds}')} {local.tzname()}"
    )


def _parse_instant(text: str) -> datetime | None:
    if not isinstance(text, str) or not _INSTANT.fullmatch(text):
        return None
    try:
        return datetime.fromisoformat(text.replace("z", "Z"))
    except ValueError:
        return None


def _day(day: date, *, weekday: bool = False) -> str:
    # English names whatever the process locale: the rest of the interface is English too.
    name = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")[day.weekday()] + " " if weekday else ""
    month = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()[day.month - 1]
    return f"{name}{day.day} {month} {day.year}"


def _offset(offset: timedelta) -> str:
    minutes = int(offset.total_seconds()) // 60
    sign, minutes = ("-" if minutes < 0 else "+"), abs(minutes)
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"

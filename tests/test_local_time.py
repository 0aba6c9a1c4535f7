"""Dates and times in a person's zone: DST-correct reading, round trips, readable chips."""

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from elicitation.local_time import LocalTimeError, from_local, readable, to_local


@pytest.mark.parametrize(
    ("zone", "picked", "sent"),
    [
        # The same zone in both seasons: the offset is the one of the picked date.
        ("Europe/Berlin", "2031-07-17T09:45", "2031-07-17T09:45:00+02:00"),
        ("Europe/Berlin", "2031-11-20T09:45", "2031-11-20T09:45:00+01:00"),
        ("America/New_York", "2031-07-17T09:45", "2031-07-17T09:45:00-04:00"),
        ("America/New_York", "2031-01-17T09:45", "2031-01-17T09:45:00-05:00"),
        # Summer in the south is in January.
        ("Australia/Sydney", "2031-01-17T09:45", "2031-01-17T09:45:00+11:00"),
        ("Australia/Sydney", "2031-07-17T09:45", "2031-07-17T09:45:00+10:00"),
        ("Asia/Kolkata", "2031-07-17T09:45:30.5", "2031-07-17T09:45:30.5+05:30"),
        # Just either side of a change.
        ("Europe/Berlin", "2031-03-30T01:59", "2031-03-30T01:59:00+01:00"),
        ("Europe/Berlin", "2031-03-30T03:00", "2031-03-30T03:00:00+02:00"),
        ("Europe/Berlin", "2031-10-26T01:59", "2031-10-26T01:59:00+02:00"),
        ("Europe/Berlin", "2031-10-26T03:00", "2031-10-26T03:00:00+01:00"),
    ],
)
def test_a_picked_local_time_gets_its_zones_offset_on_that_date(zone, picked, sent):
    assert from_local(picked, ZoneInfo(zone)) == sent


@pytest.mark.parametrize(
    ("zone", "picked", "problem"),
    [
        (
            "Europe/Berlin",
            "2031-03-30T02:30",
            "02:30 on 30 Mar 2031 does not exist in Europe/Berlin",
        ),
        ("America/New_York", "2031-03-09T02:15", "02:15 on 9 Mar 2031 does not exist"),
        ("Australia/Sydney", "2031-10-05T02:30", "does not exist in Australia/Sydney"),
        (
            "Europe/Berlin",
            "2031-10-26T02:30",
            "02:30 on 26 Oct 2031 happens twice in Europe/Berlin",
        ),
        ("America/New_York", "2031-11-02T01:00", "happens twice in America/New_York"),
        ("Australia/Sydney", "2031-04-06T02:30", "happens twice in Australia/Sydney"),
    ],
)
def test_a_time_the_clocks_skip_or_repeat_is_refused_never_shifted(zone, picked, problem):
    with pytest.raises(LocalTimeError, match=problem):
        from_local(picked, ZoneInfo(zone))


@pytest.mark.parametrize("zone", ["Europe/Berlin", "America/New_York", "Australia/Sydney"])
@pytest.mark.parametrize(
    "default",
    ["2031-07-17T07:45:00Z", "2031-01-17T23:30:15+01:00", "2031-03-30T00:59:59.250Z"],
)
def test_an_untouched_default_comes_back_as_the_same_instant(zone, default):
    shown = to_local(default, ZoneInfo(zone))
    sent = from_local(shown, ZoneInfo(zone))
    assert _instant(sent) == _instant(default)


def test_a_default_is_shown_in_the_zone_with_seconds_only_when_it_has_them():
    berlin = ZoneInfo("Europe/Berlin")
    assert to_local("2031-07-17T07:45:00Z", berlin) == "2031-07-17T09:45"
    assert to_local("2031-07-17T07:45:30Z", berlin) == "2031-07-17T09:45:30"
    assert to_local("2031-07-17T07:45:30.250Z", berlin) == "2031-07-17T09:45:30.250"
    assert to_local("not a time", berlin) == ""


def test_chips_read_dates_and_times_in_the_owners_zone():
    berlin, new_york = ZoneInfo("Europe/Berlin"), ZoneInfo("America/New_York")
    instant = "2031-07-17T07:45:00Z"
    assert readable(instant, berlin, with_time=True) == "Thu 17 Jul 2031, 09:45 CEST"
    assert readable(instant, new_york, with_time=True) == "Thu 17 Jul 2031, 03:45 EDT"
    assert (
        readable("2031-12-01T07:45:10Z", berlin, with_time=True) == "Mon 1 Dec 2031, 08:45:10 CET"
    )
    assert readable("2031-07-17", berlin, with_time=False) == "Thu 17 Jul 2031"
    assert readable("soon", berlin, with_time=True) == "soon"


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))

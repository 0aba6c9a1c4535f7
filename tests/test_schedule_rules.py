"""Schedules as RFC 5545 rules, on a controlled clock: clock schedules follow local time over
the changes of the clocks in two zones (a skipped time runs once at the first valid instant
after it, a repeated one once), interval schedules count elapsed time, and month ends fall on
the days each month has."""

import itertools
from datetime import UTC, datetime, timedelta

import pytest

from playground.onboarding.schedules import read_schedule
from playground.runs.agents import agent
from playground.schedules import recurrence
from playground.schedules.scheduler import slot_label

BERLIN, NEW_YORK = "Europe/Berlin", "America/New_York"


def local(slots, zone_name: str) -> list[str]:
    return [f"{slot.astimezone(recurrence.zone(zone_name)):%a %Y-%m-%d %H:%M %Z}" for slot in slots]


def slots(trigger: dict, zone_name: str, start: datetime, count: int) -> list[datetime]:
    rule = recurrence.to_rule(trigger, zone_name, anchor=start)
    return recurrence.slots_after(rule, zone_name, start, count)


def test_a_daily_time_the_clocks_skip_runs_once_at_the_first_valid_instant_after_it():
    # Berlin springs forward at 02:00 on 29 March 2026: 02:30 does not exist that night.
    found = slots(
        {"kind": "daily", "time": "02:30"}, BERLIN, datetime(2026, 3, 27, 12, tzinfo=UTC), 4
    )
    assert local(found, BERLIN) == [
        "Sat 2026-03-28 02:30 CET",
        "Sun 2026-03-29 03:00 CEST",
        "Mon 2026-03-30 02:30 CEST",
        "Tue 2026-03-31 02:30 CEST",
    ]


def test_a_daily_time_the_clocks_repeat_runs_once():
    # New York falls back at 02:00 on 1 November 2026: 01:30 comes round twice.
    found = slots(
        {"kind": "daily", "time": "01:30"}, NEW_YORK, datetime(2026, 10, 31, tzinfo=UTC), 3
    )
    assert local(found, NEW_YORK) == [
        "Sat 2026-10-31 01:30 EDT",
        "Sun 2026-11-01 01:30 EDT",
        "Mon 2026-11-02 01:30 EST",
    ]
    # Looking from between the two 01:30s, the second is not a slot.
    between = datetime(2026, 11, 1, 6, 0, tzinfo=UTC)  # 01:00 EST, after 01:30 EDT
    rule = recurrence.to_rule({"kind": "daily", "time": "01:30"}, NEW_YORK, anchor=between)
    assert local(recurrence.slots_after(rule, NEW_YORK, between, 1), NEW_YORK) == [
        "Mon 2026-11-02 01:30 EST"
    ]


def test_two_times_that_the_spring_gap_makes_one_instant_run_once():
    # New York skips 02:00-03:00 on 8 March 2026: 02:00 becomes 03:00, as 03:00 itself is.
    trigger = {"kind": "times_a_day", "times": ["02:00", "03:00"], "weekdays_only": False}
    found = slots(trigger, NEW_YORK, datetime(2026, 3, 7, 12, tzinfo=UTC), 4)
    assert local(found, NEW_YORK) == [
        "Sun 2026-03-08 03:00 EDT",
        "Mon 2026-03-09 02:00 EDT",
        "Mon 2026-03-09 03:00 EDT",
        "Tue 2026-03-10 02:00 EDT",
    ]


def test_an_interval_counts_elapsed_time_across_the_autumn_change():
    # Berlin falls back at 03:00 CEST on 25 October 2026: 02:00-03:00 happens twice.
    start = datetime(2026, 10, 25, 0, 0, tzinfo=UTC)  # 02:00 CEST
    rule = recurrence.to_rule({"kind": "every_n_minutes", "minutes": 15}, BERLIN, anchor=start)
    found = recurrence.slots_between(rule, BERLIN, start, start + timedelta(hours=2))
    assert [b - a for a, b in itertools.pairwise(found)] == [timedelta(minutes=15)] * 8
    walls = local(found, BERLIN)
    assert walls[0] == "Sun 2026-10-25 02:00 CEST" and walls[4] == "Sun 2026-10-25 02:00 CET"


def test_hourly_runs_23_times_on_the_day_the_clocks_spring_forward():
    day_start = datetime(2026, 3, 28, 23, 0, tzinfo=UTC)  # midnight in Berlin
    rule = recurrence.to_rule({"kind": "hourly"}, BERLIN, anchor=day_start - timedelta(minutes=1))
    day_end = datetime(2026, 3, 29, 22, 0, tzinfo=UTC) - timedelta(seconds=1)
    assert len(recurrence.slots_between(rule, BERLIN, day_start, day_end)) == 23


def test_a_weekday_schedule_keeps_its_local_time_when_the_offset_changes():
    found = slots(
        {"kind": "weekdays", "time": "09:00"}, BERLIN, datetime(2026, 3, 26, 12, tzinfo=UTC), 3
    )
    assert local(found, BERLIN) == [
        "Fri 2026-03-27 09:00 CET",
        "Mon 2026-03-30 09:00 CEST",
        "Tue 2026-03-31 09:00 CEST",
    ]
    assert [slot.hour for slot in found] == [8, 7, 7]  # UTC moved, the wall clock did not


@pytest.mark.parametrize(
    ("day", "zone_name", "expected"),
    [
        ("last_day", BERLIN, ["Sat 01-31", "Sat 02-28", "Tue 03-31", "Thu 04-30"]),
        ("first_weekday", NEW_YORK, ["Thu 01-01", "Mon 02-02", "Mon 03-02", "Wed 04-01"]),
        ("last_weekday", NEW_YORK, ["Fri 01-30", "Fri 02-27", "Tue 03-31", "Thu 04-30"]),
        ("28", BERLIN, ["Wed 01-28", "Sat 02-28", "Sat 03-28", "Tue 04-28"]),
    ],
)
def test_monthly_schedules_fall_on_days_every_month_has(day, zone_name, expected):
    trigger = {"kind": "monthly", "day_of_month": day, "time": "09:00"}
    found = slots(trigger, zone_name, datetime(2026, 1, 1, tzinfo=UTC), 4)
    assert [f"{slot.astimezone(recurrence.zone(zone_name)):%a %m-%d}" for slot in found] == expected
    assert {slot.astimezone(recurrence.zone(zone_name)).hour for slot in found} == {9}


def test_the_last_day_of_february_in_a_leap_year_is_the_29th():
    trigger = {"kind": "monthly", "day_of_month": "last_day", "time": "18:00"}
    found = slots(trigger, BERLIN, datetime(2028, 2, 1, tzinfo=UTC), 1)
    assert local(found, BERLIN) == ["Tue 2028-02-29 18:00 CET"]


def test_every_other_monday_counts_weeks_from_the_week_it_starts():
    trigger = {"kind": "every_n_weeks", "weeks": 2, "days": ["monday"], "time": "09:00"}
    found = slots(trigger, BERLIN, datetime(2026, 12, 2, 12, tzinfo=UTC), 3)  # a Wednesday
    assert local(found, BERLIN) == [
        "Mon 2026-12-14 09:00 CET",
        "Mon 2026-12-28 09:00 CET",
        "Mon 2027-01-11 09:00 CET",
    ]


def test_the_wizards_reading_of_a_description_becomes_a_rule_that_fires_at_9_in_berlin():
    trigger, _, _ = read_schedule("Every weekday at 9am summarise new GitHub issues")
    rule = recurrence.to_rule(trigger, BERLIN, anchor=datetime(2026, 12, 4, 9, tzinfo=UTC))
    assert (
        rule.splitlines()[1]
        == "RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0;BYSECOND=0"
    )
    found = recurrence.slots_after(rule, BERLIN, datetime(2026, 12, 4, 9, tzinfo=UTC), 2)
    assert local(found, BERLIN) == ["Mon 2026-12-07 09:00 CET", "Tue 2026-12-08 09:00 CET"]


def test_a_run_is_headed_by_its_slot_on_the_agents_clock():
    assert slot_label(datetime(2025, 12, 1, 8, 0, tzinfo=UTC), BERLIN) == "Mon 1 Dec 09:00 CET"


def test_rules_written_in_code_are_checked_when_the_agent_is_registered():
    rule = recurrence.check_rule("FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0;BYSECOND=0", BERLIN)
    assert rule.startswith("DTSTART;TZID=Europe/Berlin:")
    with pytest.raises(ValueError, match="cannot run"):
        agent("bad-schedule", name="Bad", schedule="FREQ=SOMETIMES")
    with pytest.raises(ValueError, match="cannot run"):
        agent(
            "bad-trigger",
            name="Bad",
            schedule={"kind": "monthly", "day_of_month": "31", "time": "09:00"},
        )
    with pytest.raises(recurrence.RuleError):
        recurrence.to_rule(
            {"kind": "daily", "time": "09:00"}, "Mars/Olympus", anchor=datetime.now(UTC)
        )

"""The review overview: counts by state, degraded reasons, time to answer per agent, in a range."""

from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from django import forms
from django.db.models import Count
from django.utils import timezone

from elicitation.admin_charts import answer_time_histogram, states_by_day
from elicitation.models import Part
from elicitation.review import answered, describe_duration, percentile

DEFAULT_DAYS = 7
DATE_HELP = "Enter a date as YYYY-MM-DD, like 2026-05-01."


class RangeForm(forms.Form):
    start = forms.DateField(label="From", error_messages={"invalid": DATE_HELP})
    end = forms.DateField(label="To (inclusive)", error_messages={"invalid": DATE_HELP})

    def clean(self):
        data = super().clean()
        if data.get("start") and data.get("end") and data["end"] < data["start"]:
            raise forms.ValidationError("The end date is before the start date.")
        return data


def range_form(query) -> RangeForm:
    """Return the form bound to the query string, or to the last 7 days when it is empty."""
    if not query.get("start") and not query.get("end"):
        today = timezone.localdate()
        query = {"start": today - timedelta(days=DEFAULT_DAYS - 1), "end": today}
    return RangeForm(query)


@dataclass(frozen=True)
class AgentTiming:
    agent: str
    agent_id: int
    answered: int
    median: timedelta | None
    p90: timedelta | None

    @property
    def median_text(self) -> str:
        return describe_duration(self.median)

    @property
    def p90_text(self) -> str:
        return describe_duration(self.p90)


def bounds(start: date, end: date) -> tuple[datetime, datetime]:
    """Return the instants a date range covers: from the start of `start` to the end of `end`."""
    zone = timezone.get_current_timezone()
    return (
        datetime.combine(start, time.min, tzinfo=zone),
        datetime.combine(end + timedelta(days=1), time.min, tzinfo=zone),
    )


def overview(start: date, end: date) -> dict:
    """Return the numbers for parts asked between `start` and `end` (inclusive dates)."""
    since, until = bounds(start, end)
    parts = Part.objects.filter(created_at__gte=since, created_at__lt=until)
    counts = dict(parts.order_by().values_list("state").annotate(n=Count("pk")))
    reasons = (
        parts.filter(state=Part.State.DEGRADED)
        .order_by()
        .values_list("degraded_reason")
        .annotate(n=Count("pk"))
        .order_by("-n", "degraded_reason")
    )
    durations = answer_times(parts)
    return {
        "since": since,
        "until": until,
        "total": sum(counts.values()),
        "states": [(value, label, counts.get(value, 0)) for value, label in Part.State.choices],
        "reasons": list(reasons),
        "timings": agent_timings(durations),
        "by_day": states_by_day(parts, start, end),
        "histogram": answer_time_histogram([d for found in durations.values() for d in found]),
    }


def answer_times(parts) -> dict[tuple[int, str], list[timedelta]]:
    """Return the times to answer of the answered parts, per agent (id, name)."""
    rows = answered(parts).values_list(
        "conversation__agent_id", "conversation__agent__name", "created_at", "settled_at"
    )
    durations: dict[tuple[int, str], list[timedelta]] = defaultdict(list)
    for agent_id, name, created_at, settled_at in rows.iterator():
        durations[agent_id, name].append(settled_at - created_at)
    return durations


def agent_timings(durations: dict[tuple[int, str], list[timedelta]]) -> list[AgentTiming]:
    """Return the median and 90th-percentile time to answer per agent, slowest median first."""
    timings = [
        AgentTiming(name, agent_id, len(found), percentile(found, 0.5), percentile(found, 0.9))
        for (agent_id, name), found in durations.items()
    ]
    return sorted(timings, key=lambda timing: (-timing.median, timing.agent))

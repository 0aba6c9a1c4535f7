"""The overview's two charts, as geometry for server-rendered SVG: parts by state per day
(stacked bars) and a histogram of time to answer. No chart library, no script."""

from dataclasses import dataclass
from datetime import date, timedelta
from itertools import pairwise

from django.db.models import Count
from django.db.models.functions import TruncDate
from django.utils import timezone

from elicitation.models import Part
from elicitation.review import describe_duration

WIDTH, HEIGHT = 600, 200  # the SVG's viewBox; it scales to its box
# Time to answer, in buckets a reviewer thinks in: the upper bound of each, the last open.
BUCKETS = [
    timedelta(seconds=10),
    timedelta(seconds=30),
    timedelta(minutes=1),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
    timedelta(days=1),
]


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    css: str  # the state, or "answered": the colour comes from admin.css
    label: str  # the bar's title: what a pointer or a screen reader gets

    @property
    def bottom(self) -> float:
        return self.y + self.height


def states_by_day(parts, start: date, end: date) -> dict:
    """Return the stacked bars of parts asked per day, one segment per state."""
    zone = timezone.get_current_timezone()
    rows = (
        parts.order_by()
        .annotate(day=TruncDate("created_at", tzinfo=zone))
        .values_list("day", "state")
        .annotate(n=Count("pk"))
    )
    counts: dict[tuple[date, str], int] = {(day, state): n for day, state, n in rows}
    days = [start + timedelta(days=n) for n in range((end - start).days + 1)]
    totals = [sum(counts.get((day, state), 0) for state in Part.State.values) for day in days]
    top = max(totals, default=0) or 1
    slot = WIDTH / len(days)
    bars = []
    for index, day in enumerate(days):
        y = HEIGHT
        for state, name in Part.State.choices:
            n = counts.get((day, state), 0)
            if not n:
                continue
            height = HEIGHT * n / top
            y -= height
            label = f"{day:%-d %b}: {n} {name.lower()}"
            bars.append(Bar(index * slot + slot * 0.1, y, slot * 0.8, height, state, label))
    every = max(1, len(days) // 7)  # at most about 7 day labels under the bars
    ticks = [(index * slot + slot / 2, f"{day:%-d %b}") for index, day in enumerate(days)]
    return {"bars": bars, "top": max(totals, default=0), "ticks": ticks[::every]}


def answer_time_histogram(durations: list[timedelta]) -> dict:
    """Return the histogram bars of time to answer, one per bucket of BUCKETS."""
    counts = [0] * (len(BUCKETS) + 1)
    for duration in durations:
        counts[next((i for i, bound in enumerate(BUCKETS) if duration < bound), len(BUCKETS))] += 1
    names = [f"under {describe_duration(BUCKETS[0])}"]
    names += [f"{describe_duration(a)}–{describe_duration(b)}" for a, b in pairwise(BUCKETS)]
    names += [f"{describe_duration(BUCKETS[-1])} or more"]
    top = max(counts) or 1
    slot = WIDTH / len(counts)
    bars = [
        Bar(
            index * slot + slot * 0.1,
            HEIGHT - HEIGHT * n / top,
            slot * 0.8,
            HEIGHT * n / top,
            "answered",
            f"{name}: {n} answered",
        )
        for index, (name, n) in enumerate(zip(names, counts, strict=True))
    ]
    ticks = [(index * slot + slot / 2, name) for index, name in enumerate(names)]
    return {"bars": bars, "top": max(counts), "ticks": ticks}

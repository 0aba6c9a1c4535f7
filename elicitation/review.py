"""The queries and numbers the admin review needs: time to answer, search, percentiles.

Everything here runs the same on SQLite and PostgreSQL: search reads a column kept with each
part, and percentiles are computed in Python over the durations of the chosen range.
"""

from datetime import timedelta

from django.db.models import Case, DurationField, F, Q, QuerySet, When
from django.utils.text import smart_split, unescape_string_literal

from elicitation.kinds import KINDS
from elicitation.models import Part

# Settled by a person's choice (or an operator's cancel). Degraded parts were never answered.
ANSWERED_STATES = (Part.State.SUBMITTED, Part.State.DECLINED, Part.State.CANCELLED)
# Kinds that settle the moment they are shown (display cards) have no time to answer.
SELF_SETTLING_KINDS = tuple(kind.name for kind in KINDS.values() if kind.settles_immediately)


def answered(queryset: QuerySet[Part]) -> QuerySet[Part]:
    """Return the parts a person answered, declined or cancelled."""
    answered = queryset.filter(state__in=ANSWERED_STATES, settled_at__isnull=False)
    return answered.exclude(render_kind__in=SELF_SETTLING_KINDS)


def with_answer_time(queryset: QuerySet[Part]) -> QuerySet[Part]:
    """Annotate `answer_time`: from asked to settled, for answered parts only (else NULL)."""
    is_answered = Q(state__in=ANSWERED_STATES) & ~Q(render_kind__in=SELF_SETTLING_KINDS)
    return queryset.annotate(
        answer_time=Case(
            When(is_answered, then=F("settled_at") - F("created_at")),
            default=None,
            output_field=DurationField(),
        )
    )


def search(queryset: QuerySet[Part], term: str) -> QuerySet[Part]:
    """Return the parts whose question, field titles, answer or degraded reason hold every word.

    Quoted phrases count as one word. The words are matched against the part's search column
    (kept lower-cased with the part) and its conversation's title.
    """
    for word in _words(term):
        queryset = queryset.filter(
            Q(search_text__contains=word.lower()) | Q(conversation__title__icontains=word)
        )
    return queryset


def _words(term: str) -> list[str]:
    words = []
    for bit in smart_split(term):
        if bit[:1] in "\"'" and bit[-1:] == bit[:1] and len(bit) > 1:
            bit = unescape_string_literal(bit)
        if bit.strip():
            words.append(bit)
    return words


def percentile(durations: list[timedelta], fraction: float) -> timedelta | None:
    """Return the `fraction` percentile, interpolated like PostgreSQL's percentile_cont."""
    if not durations:
        return None
    ordered = sorted(durations)
    position = (len(ordered) - 1) * fraction
    lower = int(position)
    upper = min(lower + 1, len(ordered) - 1)
    return ordered[lower] + (ordered[upper] - ordered[lower]) * (position - lower)


def describe_duration(duration: timedelta | None) -> str:
    """Return a duration as a person reads it: "under 0.1 s", "0.4 s", "42 s", "3 min 5 s",
    "2 h 4 min", "3 d 1 h"."""
    if duration is None:
        return "—"
    seconds = duration.total_seconds()
    if seconds < 0.05:  # not "0.0 s", which reads as if it never ran
        return "under\u00a00.1\u00a0s"
    if seconds < 10:
        return f"{seconds:.1f}\u00a0s"
    seconds = round(seconds)
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    # Two units at most; a no-break space keeps each number with its unit.
    units = [(days, "d"), (hours, "h"), (minutes, "min"), (seconds, "s")]
    first = next(index for index, (amount, _) in enumerate(units) if amount or index == 3)
    shown = [(amount, unit) for amount, unit in units[first : first + 2] if amount]
    return " ".join(f"{amount}\u00a0{unit}" for amount, unit in shown)

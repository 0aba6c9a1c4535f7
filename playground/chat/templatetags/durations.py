"""Show durations as a person reads them ("0.4 s", "3 min 5 s"), and how long ago something
happened in the same words ("3 min ago")."""

from datetime import datetime, timedelta

from django import template
from django.utils import timezone

from elicitation.review import describe_duration

register = template.Library()
MINUTE = timedelta(minutes=1)


@register.filter
def duration(value: timedelta | None) -> str:
    """Return a duration as a person reads it."""
    return describe_duration(value)


@register.filter
def ago(moment: datetime | None) -> str:
    """Return how long ago `moment` was: "3 min ago", "2 h 4 min ago", "just now".

    In whole minutes: a page read a while after it was drawn would be wrong in its seconds.
    """
    if moment is None:
        return "—"
    age = timezone.now() - moment
    if age < MINUTE:
        return "just now"
    return f"{describe_duration(age // MINUTE * MINUTE)} ago"

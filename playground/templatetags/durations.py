"""Show durations as a person reads them ("0.4 s", "3 min 5 s")."""

from datetime import timedelta

from django import template

from elicitation.review import describe_duration

register = template.Library()


@register.filter
def duration(value: timedelta | None) -> str:
    """Return a duration as a person reads it."""
    return describe_duration(value)

"""A person's time zone: every date and time of their conversations is shown and read in it."""

from functools import cache
from zoneinfo import ZoneInfo, available_timezones

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist

from elicitation.models import PersonZone


@cache
def zone_names() -> list[str]:
    """Return every IANA zone name this machine knows, sorted."""
    return sorted(available_timezones())


def zone_of(user) -> ZoneInfo:
    """Return the person's zone, or the site's TIME_ZONE until their browser has told us."""
    try:
        return ZoneInfo(user.time_zone.name)
    except (ObjectDoesNotExist, AttributeError):  # not known yet, or nobody logged in
        return ZoneInfo(settings.TIME_ZONE)


def knows_zone(user) -> bool:
    """Return whether the person's zone is known (else their browser is asked once)."""
    try:
        return bool(user.time_zone)
    except (ObjectDoesNotExist, AttributeError):
        return False


def set_zone(user, name: str) -> bool:
    """Store the person's zone; return False (storing nothing) for a name that is not a zone."""
    if name not in zone_names():
        return False
    user.time_zone, _ = PersonZone.objects.update_or_create(user=user, defaults={"name": name})
    return True

"""Which conversations a person has open right now: a row per live conversation socket.

The consumer adds a row when a tab's socket opens and removes it when it closes. A process
that dies cannot remove its rows, so each web process refreshes `seen_at` of its own sockets
every TAB_REFRESH_SECONDS (from the notification sender's loop) and a row quiet for three
refreshes counts as closed.
"""

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from playground.notify.models import Tab

# This process's open sockets, refreshed by `refresh_own_tabs`.
_own: set[str] = set()


def tab_opened(user_id: int, conversation_id: int, channel_name: str) -> None:
    """Record an open tab of a conversation."""
    Tab.objects.update_or_create(
        channel_name=channel_name,
        defaults={
            "user_id": user_id,
            "conversation_id": conversation_id,
            "seen_at": timezone.now(),
        },
    )
    _own.add(channel_name)


def tab_closed(channel_name: str) -> None:
    """Forget a tab whose socket closed."""
    _own.discard(channel_name)
    Tab.objects.filter(channel_name=channel_name).delete()


def refresh_own_tabs() -> None:
    """Show this process's sockets are still open; drop rows a dead process left behind."""
    now = timezone.now()
    if _own:
        Tab.objects.filter(channel_name__in=list(_own)).update(seen_at=now)
    Tab.objects.filter(seen_at__lt=now - _stale_after()).delete()


def live_tabs(user_ids: list[int]):
    """Return the people's tabs open right now (the real clock: a tab is open or not)."""
    return Tab.objects.filter(user_id__in=user_ids, seen_at__gte=timezone.now() - _stale_after())


def _stale_after() -> timedelta:
    return timedelta(seconds=3 * settings.TAB_REFRESH_SECONDS)

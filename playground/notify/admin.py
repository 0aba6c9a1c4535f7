"""The notification queue in the admin: each notice, and what was sent about it (read-only);
what was sent also shows on the timeline of the question's review."""

from datetime import datetime

from django.contrib import admin

from elicitation.admin import add_timeline_steps
from elicitation.models import Part
from playground.notify.models import Notice, Sent


class SentInline(admin.TabularInline):
    model = Sent
    extra = 0
    can_delete = False
    readonly_fields = ["channel", "reminder", "sent_at"]

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Notice)
class NoticeAdmin(admin.ModelAdmin):
    list_display = ["part", "user", "status", "due_at", "told_at", "reminders", "attempts"]
    list_filter = ["status"]
    readonly_fields = [f.name for f in Notice._meta.fields]
    inlines = [SentInline]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


def sent_steps(part: Part) -> list[tuple[str, datetime]]:
    """Return each notification sent about the part, for its review's timeline."""
    sent = Sent.objects.filter(notice__part=part).select_related("notice__user")
    return [
        (
            f"{'Reminded' if row.reminder else 'Told'} {row.notice.user.get_username()} "
            f"({'email' if row.channel == Sent.Channel.EMAIL else 'browser notification'})",
            row.sent_at,
        )
        for row in sent
    ]


add_timeline_steps(sent_steps)

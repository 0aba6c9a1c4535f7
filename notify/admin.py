"""The notification queue in the admin: each notice, and what was sent about it (read-only)."""

from django.contrib import admin

from notify.models import Notice, Sent


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

"""Admin: staff see every API token and revoke them; webhook deliveries with their tries."""

from django.contrib import admin
from django.utils import timezone

from playground.api.models import ApiToken, DeliveryAttempt, WebhookDelivery


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "prefix", "webhook_url", "created_at", "revoked_at"]
    list_filter = [("revoked_at", admin.EmptyFieldListFilter)]
    search_fields = ["name", "prefix", "owner__username"]
    readonly_fields = ["owner", "name", "prefix", "webhook_url", "created_at", "revoked_at"]
    exclude = ["key_hash"]  # a hash, but still nothing a person needs to see
    actions = ["revoke_tokens"]

    def has_add_permission(self, request, obj=None):
        return False  # tokens are made by their owners, who see the key once

    @admin.action(description="Revoke the selected tokens", permissions=["change"])
    def revoke_tokens(self, request, queryset):
        revoked = queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        self.message_user(request, f"Revoked {revoked} token(s).")


class DeliveryAttemptInline(admin.TabularInline):
    model = DeliveryAttempt
    extra = 0
    can_delete = False
    readonly_fields = ["created_at", "status_code", "error"]

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    list_display = ["part", "url", "status", "attempts", "next_attempt_at", "created_at"]
    list_filter = ["status"]
    # A receiver reports a delivery by its Webhook-Id header: paste it whole.
    search_fields = ["url", "token__name", "=webhook_id"]
    readonly_fields = [
        "token",
        "part",
        "url",
        "webhook_id",
        "status",
        "attempts",
        "next_attempt_at",
        "created_at",
    ]
    inlines = [DeliveryAttemptInline]

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

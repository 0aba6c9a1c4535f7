"""Connections in the admin: metadata only (who, which service, when); never a value."""

from django.contrib import admin

from playground.connections.models import Connection


@admin.register(Connection)
class ConnectionAdmin(admin.ModelAdmin):
    list_display = ["label", "service", "owner", "created_at", "last_used_at", "key"]
    list_filter = ["service"]
    search_fields = ["label", "owner__username"]
    # `sealed` is left out of every form and list: staff see that a connection exists.
    fields = ["owner", "service", "label", "created_at", "last_used_at", "last_tested_at", "key"]
    readonly_fields = fields

    @admin.display(description="Sealed with key")
    def key(self, connection: Connection) -> str:
        return connection.key_id

    def has_add_permission(self, request) -> bool:
        return False  # a credential is entered by its owner, in the vault's own form

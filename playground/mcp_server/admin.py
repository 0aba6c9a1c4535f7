"""Admin: staff see the MCP tasks, each with its question (reviewed with the other parts)."""

from django.contrib import admin

from playground.mcp_server.models import McpTask


@admin.register(McpTask)
class McpTaskAdmin(admin.ModelAdmin):
    list_display = ["id", "part", "token", "created_at", "cancelled_at"]
    list_filter = [("cancelled_at", admin.EmptyFieldListFilter)]
    search_fields = ["id", "token__owner__username", "token__name"]
    readonly_fields = ["id", "part", "token", "ttl_ms", "created_at", "cancelled_at"]

    def has_add_permission(self, request, obj=None):
        return False  # a task is made by a task-augmented tool call

"""The servers in the admin, read-only: they are declared in the servers file, never here (a
command or URL typed into a web form would let any staff user run programs or leak secrets)."""

from django.contrib import admin

from playground.mcp_bridge.catalog import SERVERS
from playground.mcp_bridge.models import McpServer
from playground.runs.declared import DeclaredAdmin


@admin.register(McpServer)
class McpServerAdmin(DeclaredAdmin):
    declared = SERVERS
    list_display = ["name", "slug", "transport", "target", "groups", "status", "listed"]

    @admin.display(description="Transport")
    def transport(self, agent) -> str:
        server = self.entry(agent)
        return server.transport if server else "not in the servers file"

    @admin.display(description="Command or URL")
    def target(self, agent) -> str:
        server = self.entry(agent)
        return server.target if server else ""

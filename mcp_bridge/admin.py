"""The servers in the admin, read-only: they are declared in the servers file, never here (a
command or URL typed into a web form would let any staff user run programs or leak secrets)."""

from django.contrib import admin

from mcp_bridge import servers
from mcp_bridge.models import McpServer


@admin.register(McpServer)
class McpServerAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "transport", "target", "groups", "status", "listed"]
    search_fields = ["name", "slug"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def _server(self, agent) -> servers.ServerConfig | None:
        return _configured().get(agent.config.get("server", ""))

    @admin.display(description="Transport")
    def transport(self, agent) -> str:
        server = self._server(agent)
        return server.transport if server else "not in the servers file"

    @admin.display(description="Command or URL")
    def target(self, agent) -> str:
        server = self._server(agent)
        return server.target if server else ""

    @admin.display(description="Groups")
    def groups(self, agent) -> str:
        server = self._server(agent)
        return ", ".join(server.groups) or "every logged-in user" if server else ""

    @admin.display(description="Last check")
    def status(self, agent) -> str:
        return agent.config.get("status") or "not checked yet (manage.py mcp_check)"

    @admin.display(description="On the home page", boolean=True)
    def listed(self, agent) -> bool:
        return agent.builtin


def _configured() -> dict[str, servers.ServerConfig]:
    try:
        return servers.load()
    except servers.ServersFileError:
        return {}

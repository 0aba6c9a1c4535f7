from django.apps import AppConfig


class McpBridgeConfig(AppConfig):
    name = "playground.mcp_bridge"
    label = "mcp_bridge"
    verbose_name = "MCP servers"

    def ready(self) -> None:
        # Imported here, once the app registry is ready (Django's documented place for it).
        from django.db.models.signals import post_delete, post_migrate

        from elicitation.settle import part_settled
        from playground.connections.models import Connection
        from playground.mcp_bridge import agent  # noqa: F401  (registers the bridge as an agent kind)
        from playground.mcp_bridge.catalog import sync_agents_after_migrate
        from playground.mcp_bridge.reload import watch_servers_file
        from playground.mcp_bridge.revoked import connection_deleted
        from playground.mcp_bridge.waking import wake_session
        from playground.server.startup import run_at_start

        part_settled.connect(wake_session, dispatch_uid="mcp-wake-held-session")
        post_migrate.connect(sync_agents_after_migrate, sender=self)
        # A revoked credential closes the sessions opened with it at once, in every process.
        post_delete.connect(connection_deleted, sender=Connection, dispatch_uid="mcp-revoked")
        run_at_start(watch_servers_file)  # the servers file, reloaded when it changes

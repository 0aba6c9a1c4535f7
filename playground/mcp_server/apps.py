from django.apps import AppConfig


class McpServerConfig(AppConfig):
    name = "playground.mcp_server"
    label = "mcp_server"
    verbose_name = "MCP server"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Imported here, once the app registry is ready (Django's documented place for it).
        from playground.server import startup

        # Every web process serves /mcp from start-up on (the SDK's manager runs for good).
        startup.run_at_start(_keep_serving)


async def _keep_serving() -> None:
    # The MCP SDK is imported by the server only: a `manage.py` command never pays for it.
    from playground.mcp_server.mount import keep_manager_running

    await keep_manager_running()

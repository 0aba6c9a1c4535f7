"""Connect to every configured MCP server and list its tools, or say why it cannot be reached."""

import asyncio

from django.core.management.base import BaseCommand, CommandError

from playground.mcp_bridge import servers
from playground.mcp_bridge.calls import list_tools
from playground.mcp_bridge.catalog import record_status, sync_agents
from playground.mcp_bridge.connection import describe_error


class Command(BaseCommand):
    help = "Connect to each server in MCP_SERVERS_FILE and list its tools."

    def handle(self, *args, **options) -> None:
        try:
            configured = servers.load()
        except servers.ServersFileError as error:
            raise CommandError(str(error)) from None
        if not configured:
            self.stdout.write("No MCP servers configured (set MCP_SERVERS_FILE).")
            return
        sync_agents(configured)
        failures = 0
        for server in configured.values():
            try:
                tools = asyncio.run(list_tools(server))
            except Exception as error:
                failures += 1
                status = describe_error(server, error)
                # The command line's reader deploys it: the address is theirs to see.
                self.stdout.write(self.style.ERROR(f"{server.name}: {status} ({server.target})"))
            else:
                status = f"OK: {len(tools)} tool(s)"
                self.stdout.write(self.style.SUCCESS(f"{server.name}: {status}"))
                for tool in tools:
                    self.stdout.write(f"  {tool['name']}: {tool.get('description', '')}")
            record_status(server, status)
        if failures:
            raise CommandError(f"{failures} of {len(configured)} server(s) could not be reached.")

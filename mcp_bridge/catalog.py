"""Keep one Agent row per configured server, so each shows on the home page as an agent.

The row holds the server's name, title and description and its last known status; how to reach
the server (command, URL, environment variable names) stays in the servers file.
"""

import logging

from mcp_bridge import servers
from playground.models import Agent

logger = logging.getLogger(__name__)
KIND = "mcp"


def sync_agents(configured: dict[str, servers.ServerConfig] | None = None) -> list[Agent]:
    """Create or update the servers' agents; hide those no longer configured."""
    configured = servers.load() if configured is None else configured
    agents = []
    for name, server in configured.items():
        agent, _ = Agent.objects.update_or_create(
            slug=f"mcp-{name}",
            defaults={
                "name": server.display_name,
                "description": server.description or f"MCP server ({server.transport})",
                "kind": KIND,
                "builtin": True,
            },
        )
        if agent.config.get("server") != name:
            agent.config = {**agent.config, "server": name}
            agent.save(update_fields=["config"])
        agents.append(agent)
    # A server taken out of the file leaves the home page; its conversations stay readable.
    gone = Agent.objects.filter(kind=KIND).exclude(slug__in=[a.slug for a in agents])
    gone.update(builtin=False)
    return agents


def record_status(server: servers.ServerConfig, status: str) -> None:
    """Remember the last check's result for the admin."""
    agent = Agent.objects.filter(slug=f"mcp-{server.name}").first()
    if agent is not None:
        agent.config = {**agent.config, "status": status}
        agent.save(update_fields=["config"])


def sync_agents_after_migrate(sender, **kwargs) -> None:
    """After `migrate` (so `make run` lists the servers): sync, or say why the file is wrong."""
    try:
        sync_agents()
    except servers.ServersFileError as error:
        logger.error("MCP servers not loaded: %s", error)

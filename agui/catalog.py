"""Keep one Agent row per declared AG-UI agent, so each shows on the home page as an agent."""

import logging

from agui import agents_file
from playground.models import Agent

logger = logging.getLogger(__name__)
KIND = "agui"


def sync_agents(declared: dict[str, agents_file.AguiAgentConfig] | None = None) -> list[Agent]:
    """Create or update the declared agents' rows; hide those no longer declared."""
    declared = agents_file.load() if declared is None else declared
    agents = []
    for name, config in declared.items():
        agent, _ = Agent.objects.update_or_create(
            slug=f"agui-{name}",
            defaults={
                "name": config.display_name,
                "description": config.description or "An AG-UI agent.",
                "kind": KIND,
                "builtin": True,
            },
        )
        if agent.config.get("agui_agent") != name:
            agent.config = {**agent.config, "agui_agent": name}
            agent.save(update_fields=["config"])
        agents.append(agent)
    gone = Agent.objects.filter(kind=KIND).exclude(slug__in=[a.slug for a in agents])
    gone.update(builtin=False)  # its conversations stay readable
    return agents


def sync_agents_after_migrate(sender, **kwargs) -> None:
    """After `migrate` (so `make run` lists the agents): sync, or say why the file is wrong."""
    try:
        sync_agents()
    except agents_file.AgentsFileError as error:
        logger.error("AG-UI agents not loaded: %s", error)

"""What an agent the onboarding wizard made works with: a model, and MCP servers for its platform.

Its tools come from the servers the deployment declared for the platform it reads and the one
it delivers to (`platforms = ["github"]` in the servers file), those its owner may use. What is
missing is said in plain words, with how to add it, on the card and on every run.
"""

from typing import Any

from django.contrib.auth import get_user_model

from playground.connections import services
from playground.llm_agents import providers
from playground.mcp_bridge import servers
from playground.onboarding import catalog

# The platform a destination delivers through ("chat" needs none).
DESTINATION_PLATFORMS = {
    "slack": "slack",
    "slack_dm": "slack",
    "email": "email",
    "github_comment": "github",
}


def needed(config: dict[str, Any]) -> list[str]:
    """Return the platforms the agent reads from and delivers to, without repeats."""
    destination = (config.get("destination") or {}).get("kind")
    wanted = [config.get("platform"), DESTINATION_PLATFORMS.get(destination or "")]
    return list(dict.fromkeys(platform for platform in wanted if platform))


def title(platform: str) -> str:
    option = catalog.find(catalog.PLATFORMS, platform)
    return option.title if option else platform


def _servers_by_platform(config: dict[str, Any], user) -> list[tuple[str, list]]:
    """Return each platform the agent needs with the servers its owner may use for it."""
    configured = servers.load()
    return [
        (
            platform,
            [
                server
                for _, server in sorted(configured.items())
                if platform in server.platforms and server.allows(user)
            ],
        )
        for platform in needed(config)
    ]


def plan(config: dict[str, Any], user_id: int) -> dict[str, list[str]]:
    """Return `{"servers": names, "missing": sentences}` for the agent's owner now."""
    user = get_user_model().objects.get(pk=user_id)
    try:
        found = _servers_by_platform(config, user)
    except servers.ServersFileError as error:
        return {"servers": [], "missing": [f"The MCP servers file cannot be used: {error}"]}
    names, missing = [], []
    for platform, usable in found:
        if usable:
            names += [server.name for server in usable if server.name not in names]
        else:
            missing.append(no_server(platform))
    return {"servers": names, "missing": missing}


def connections(config: dict[str, Any], user_id: int) -> list[dict[str, str]]:
    """Return the connections the agent takes from its owner through its platforms' servers
    (`connection = "<service>"`), one per service: `{"service", "title", "server",
    "platform"}` (titles, for the wizard to ask with). A service the services file does not
    declare is left out (the Connections page says what is wrong with that file)."""
    user = get_user_model().objects.get(pk=user_id)
    try:
        found = _servers_by_platform(config, user)
        declared = services.load()
    except (servers.ServersFileError, services.ServicesFileError):
        return []
    wanted: dict[str, dict[str, str]] = {}
    for platform, usable in found:
        for server in usable:
            service = declared.get(server.connection)
            if service is not None and service.name not in wanted:
                wanted[service.name] = {
                    "service": service.name,
                    "title": service.title,
                    "server": server.display_name,
                    "platform": title(platform),
                }
    return list(wanted.values())


def no_server(platform: str) -> str:
    name = title(platform)
    return (
        f"No MCP server for {name} is declared, so it has no {name} tools: whoever runs "
        "this playground adds one to the servers file (MCP_SERVERS_FILE) with "
        f'platforms = ["{platform}"].'
    )


def no_model(config: dict[str, Any]) -> str:
    """Return what an agent answered by its own rules lacks: a model to do the work."""
    if providers.choices():
        return (
            "It is answered by its own rules, which cannot read or send anything: make it again "
            "in the wizard and choose a model at “Who should answer this agent's messages?”."
        )
    return (
        "No model is configured, so nothing can do its work: whoever runs this playground sets "
        "LLM_BASE_URL and LLM_MODELS (or ANTHROPIC_API_KEY) and restarts it."
    )

"""Keep one Agent row per declared AG-UI agent, so each shows on the home page as an agent."""

from playground.agui import agents_file
from playground.runs.declared import Declared

KIND = "agui"
AGENTS = Declared(
    kind=KIND,
    key="agui_agent",
    load=agents_file.load,
    error=agents_file.AgentsFileError,
    one="AG-UI agent",
    file="agents file",
    check="agui_check",
    description="An AG-UI agent.",
)
sync_agents = AGENTS.sync
sync_agents_after_migrate = AGENTS.sync_after_migrate

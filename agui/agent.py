"""An AG-UI agent as an agent: each declared AG-UI endpoint is an Agent row of kind "agui" whose
config names it (see `catalog`); its turns are run by `agui.turns`.

Only the agents file is read here: the protocol's types (pydantic models) and the HTTP client
are imported at the first turn, so starting Django never pays for them.
"""

from asgiref.sync import sync_to_async

from agui import agents_file
from agui.catalog import KIND
from playground.agents import agent
from playground.runtime import ExplainedFault, TurnContext


class AguiRunFailed(ExplainedFault):
    """A run of the AG-UI agent failed; the message names the problem."""


def available_to(agent_row, user) -> bool:
    """Return whether `user` may use the AG-UI agent behind `agent_row`."""
    try:
        declared = agents_file.load().get(agent_row.config.get("agui_agent", ""))
    except agents_file.AgentsFileError:
        return False
    return declared is not None and declared.allows(user)


@agent(
    KIND,
    name="AG-UI agent",
    description="Runs an agent that speaks AG-UI.",
    listed=False,
    available_to=available_to,
)
async def agui_agent(ctx: TurnContext, message: str) -> None:
    try:
        declared = agents_file.load().get(ctx.config.get("agui_agent", ""))
    except agents_file.AgentsFileError as error:
        raise AguiRunFailed(str(error)) from None
    if declared is None:
        raise AguiRunFailed("This AG-UI agent is no longer in the agents file.")
    if not await sync_to_async(declared.allows)(ctx.user):
        raise AguiRunFailed(f"You are not in a group allowed to use {declared.display_name}.")
    # Imported at the first turn: the protocol's pydantic types take a second to import.
    from agui.turns import run_agui_turn

    await run_agui_turn(ctx, declared, message)

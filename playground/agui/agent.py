"""An AG-UI agent as an agent: each declared AG-UI endpoint is an Agent row of kind "agui" whose
config names it (see `catalog`); its turns are run by `playground.agui.turns`.

Only the agents file is read here: the protocol's types (pydantic models) and the HTTP client
are imported at the first turn, so starting Django never pays for them.
"""

from playground.agui.catalog import AGENTS, KIND
from playground.agui.errors import AguiRunFailed
from playground.runs.agents import agent
from playground.runs.runtime import TurnContext


@agent(
    KIND,
    name="AG-UI agent",
    description="Runs an agent that speaks AG-UI.",
    listed=False,
    available_to=AGENTS.available_to,
    shows_wire=True,
)
async def agui_agent(ctx: TurnContext, message: str) -> None:
    declared, problem = await AGENTS.usable(ctx)
    if problem:
        raise AguiRunFailed(problem)
    # Imported at the first turn: the protocol's pydantic types take a second to import.
    from playground.agui.turns import run_agui_turn

    await run_agui_turn(ctx, declared, message)

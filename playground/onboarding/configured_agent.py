"""An agent made in the onboarding wizard and answered by its own rules.

Rules cannot read a platform or send anything, so a run says plainly what the agent is set up
to do and what it lacks to do it (a model; an MCP server for its platform), and how to add
that. Nothing is pretended: no reading, no results.

Its trigger runs it on its own (`planned`, which the LLM agent kind declares too for the
agents the wizard makes for a model): each slot is a turn in its Runs conversation (see
playground/schedules/scheduler.py), saying the same there.
"""

from __future__ import annotations

from typing import Any

from playground.onboarding import catalog, drafts, model_setup, setup_agent, summary
from playground.runs.agents import Planned, agent


def planned(row) -> Planned | None:
    """Return when a wizard-made agent runs: its trigger, in its zone."""
    trigger = (row.config or {}).get("trigger")
    if not isinstance(trigger, dict) or not trigger.get("kind"):
        return None
    zone = (row.config or {}).get("timezone") or "UTC"
    return Planned(trigger, zone if catalog.is_timezone(zone) else "UTC", summary.when(row.config))


def not_ready(name: str, config: dict[str, Any], missing: list[str]) -> str:
    """Return what a wizard-made agent says when it cannot work yet, and why."""
    plan = summary.what_it_does(config, first_person=True)
    lacking = "\n".join(f"- {line}" for line in missing)
    return (
        f"I'm **{name}**. I'm set up to {plan}, but I cannot do it yet:\n\n{lacking}\n\n"
        "Nothing was read or sent."
    )


@agent(
    drafts.CONFIGURED_KIND,
    name="Configured agent",
    description="An agent made in the onboarding wizard.",
    listed=False,
    schedule=planned,
)
async def configured(ctx, message: str) -> None:
    if await setup_agent.is_setup_turn(ctx):
        # The turn that created this agent: it finishes as the setup agent began it.
        await setup_agent.setup(ctx, message)
        return
    missing = await ctx.step(
        "what the agent lacks",
        model_setup.missing,
        ctx.config,
        drafts.CONFIGURED_KIND,
        ctx.user.pk,
        shown=False,
    )
    await ctx.say(not_ready(ctx.agent.name, ctx.config, missing))

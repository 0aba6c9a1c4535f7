"""Support triage's scheduled check done for real: the deployment's model reads the platform
through the MCP servers declared for it (`platforms = ["zendesk"]` in the servers file), with
the person's connection where a server needs one, and flags what needs a person.

Registered into playground/runs/builtin_agents/support_triage.py from this app's ready() through
playground.llm_agents.agent (which imports this module, and pydantic_ai with it, at the first
check).
"""

from playground.llm_agents import platforms, providers
from playground.llm_agents.turns import run_llm_turn
from playground.runs.runtime import TurnContext


async def check(ctx: TurnContext, settings: dict, instructions: str, choice: str) -> None:
    """Run one check: the model `choice`, told what to look for, with the platform's tools."""
    config = {"platform": settings["platform"]}
    plan = await ctx.step("its platform's MCP servers", platforms.plan, config, ctx.user.pk)
    provider_name, model_name = choice.split("/", 1)
    provider = providers.find(provider_name, model_name)
    await run_llm_turn(
        ctx,
        providers.build_model(provider, model_name),
        provider_label=provider.describe(),
        provider_address=provider.address,
        config={"instructions": instructions, "mcp_servers": plan["servers"]},
    )

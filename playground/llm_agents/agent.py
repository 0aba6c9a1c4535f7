"""The LLM agent kind: an agent whose turns a model answers (its config names the model).

An agent the onboarding wizard made (its config has a `platform`) gets the tools of the MCP
servers declared for its platforms; without one it says what is missing instead of running.
Its trigger runs it on its own, as any wizard-made agent (`schedule=`): each slot is a turn in
its Runs conversation (see playground/schedules/scheduler.py).

pydantic_ai and the MCP SDK are imported at the first turn (`playground.llm_agents.turns`) or the
first
setup with a model (`playground.llm_agents.setup`), never when Django starts.
"""

from django.conf import settings

from playground.llm_agents import platforms, providers
from playground.onboarding import setup_agent, summary
from playground.onboarding.configured_agent import not_ready, planned
from playground.runs.agents import agent

KIND = "llm"


@agent(
    KIND,
    name="LLM agent",
    description="A model you configured answers.",
    listed=False,
    schedule=planned,  # a wizard-made one runs on its trigger; others have none
    edit_url="edit_llm_agent",
    shows_wire=lambda row: uses_mcp_servers(row.config),
)
async def llm_agent(ctx, message: str) -> None:
    if await setup_agent.is_setup_turn(ctx):
        # The wizard's turn that made this agent: it finishes as the setup agent began it.
        await setup_agent.setup(ctx, message)
        return
    # Imported at the first turn: pydantic_ai and the MCP SDK take seconds to import, which
    # every `manage.py` command and server start paid before.
    from playground.llm_agents.turns import run_llm_turn

    config = ctx.config
    provider = providers.find(config.get("provider", ""), config.get("model", ""))
    if "platform" in config:
        plan = await ctx.step("its platforms' MCP servers", platforms.plan, config, ctx.user.pk)
        if plan["missing"]:
            await ctx.say(not_ready(ctx.agent.name, config, plan["missing"]))
            return
        config = {**config, "mcp_servers": plan["servers"]}
    model = providers.build_model(provider, config["model"])
    await run_llm_turn(
        ctx,
        model,
        provider_label=provider.describe(),
        provider_address=provider.address,
        config=config,
    )


def uses_mcp_servers(config: dict) -> bool:
    """Return whether an agent with `config` calls MCP servers' tools (its chat shows the
    Wire panel): servers attached by name, or a wizard-made agent's platforms' servers."""
    return bool(config.get("mcp_servers") or platforms.needed(config))


def configure_from_wizard(config: dict, choice: str) -> dict:
    """Return the configuration of an agent the onboarding wizard made, answered by a model."""
    provider, model = choice.split("/", 1)
    return {**config, "provider": provider, "model": model, "instructions": instructions(config)}


def instructions(config: dict) -> str:
    """Return the model's instructions, from the description and the card."""
    name = config["name"]
    lines = [f"You are {name}, an agent in a chat. {config.get('purpose') or ''}".strip()]
    if config.get("instructions"):
        lines.append(
            f"What you are for, in the words of the person who set you up:\n"
            f"{config['instructions']}"
        )
    lines.append(
        f"{name} {summary.what_it_does(config)}. Do that with your tools. When you need a "
        "decision or a detail only the person can give, ask with request_input. Never say you "
        "read, posted or sent something you did not do with a tool."
    )
    if (config.get("trigger") or {}).get("kind"):
        lines.append(
            'A message that begins "Scheduled run", "Catch-up run" or "Run now" is your '
            "schedule firing (in your Runs conversation): do one run of that work now."
        )
    return "\n\n".join(lines)


def missing(config: dict, kind: str, user_id: int) -> list[str]:
    """Return what an agent the wizard makes lacks to work (see model_setup.ModelSetup)."""
    lacking = [] if kind == KIND else [platforms.no_model(config)]
    return lacking + platforms.plan(config, user_id)["missing"]


def connections(config: dict, kind: str, user_id: int) -> list[dict[str, str]]:
    """Return the connections an agent the wizard makes takes from its owner (see
    model_setup.ModelSetup); none when its own rules answer it, as they call no server."""
    return platforms.connections(config, user_id) if kind == KIND else []


def setup_model() -> str | None:
    """Return the setup agent's model: LLM_SETUP_MODEL, else the first configured one."""
    offered = [value for value, _ in providers.choices()]
    if settings.LLM_SETUP_MODEL in offered:
        return settings.LLM_SETUP_MODEL
    return offered[0] if offered else None


async def propose_setup(ctx, choice: str, message: str, draft: dict) -> dict:
    """Let the model read, ask and propose (see model_setup.ModelSetup.propose)."""
    # Imported at the first setup a model answers: it needs pydantic_ai (see turns above).
    from playground.llm_agents import setup

    return await setup.propose(ctx, choice, message, draft)


def triage_missing(platform: str, user_id: int) -> list[str]:
    """Return what Support triage's check of the platform lacks for the person: a server for
    the platform, a model (see playground/runs/builtin_agents/support_triage.py)."""
    lacking = platforms.plan({"platform": platform}, user_id)["missing"]
    return lacking + ([] if setup_model() else [platforms.no_model({})])


async def triage_check(ctx, settings: dict, instructions: str) -> None:
    """Run one check of Support triage with the setup agent's model."""
    # Imported at the first check: it needs pydantic_ai (see turns above).
    from playground.llm_agents import triage

    choice = await ctx.step("the model that checks", setup_model, shown=False)
    await triage.check(ctx, settings, instructions, choice)

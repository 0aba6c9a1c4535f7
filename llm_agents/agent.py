"""The LLM agent kind: an agent whose turns a model answers (its config names the model)."""

from llm_agents import providers
from playground.agents import agent

KIND = "llm"


@agent(KIND, name="LLM agent", description="A model you configured answers.", listed=False)
async def llm_agent(ctx, message: str) -> None:
    # Imported at the first turn: pydantic_ai and the MCP SDK take seconds to import, which
    # every `manage.py` command and server start paid before.
    from llm_agents.turns import run_llm_turn

    config = ctx.config
    provider = providers.find(config.get("provider", ""), config.get("model", ""))
    model = providers.build_model(provider, config["model"])
    await run_llm_turn(
        ctx, model, provider_label=provider.describe(), provider_address=provider.address
    )


def configure_from_wizard(config: dict, choice: str) -> dict:
    """Return the configuration of an agent the onboarding wizard made, answered by a model."""
    provider, model = choice.split("/", 1)
    purpose = config.get("purpose") or ""
    instructions = f"You are {config['name']}, an agent in a chat. {purpose}".strip()
    return {**config, "provider": provider, "model": model, "instructions": instructions}

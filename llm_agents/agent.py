"""The LLM agent kind: an agent whose turns a model answers (its config names the model)."""

from llm_agents import providers
from llm_agents.turns import run_llm_turn
from playground.agents import agent

KIND = "llm"


@agent(KIND, name="LLM agent", description="A model you configured answers.", listed=False)
async def llm_agent(ctx, message: str) -> None:
    config = ctx.config
    provider = providers.find(config.get("provider", ""), config.get("model", ""))
    model = providers.build_model(provider, config["model"])
    await run_llm_turn(ctx, model, provider_label=provider.describe())

from django.apps import AppConfig


class LlmAgentsConfig(AppConfig):
    name = "llm_agents"
    verbose_name = "LLM agents"

    def ready(self) -> None:
        # Imported here, once the app registry is ready (Django's documented place for it).
        from llm_agents import agent, providers
        from playground.onboarding.answerers import Answerer, register_answerer

        # The onboarding wizard offers the configured models for the agents it makes.
        register_answerer(Answerer(agent.KIND, providers.choices, agent.configure_from_wizard))

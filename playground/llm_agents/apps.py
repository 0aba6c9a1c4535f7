from django.apps import AppConfig


class LlmAgentsConfig(AppConfig):
    name = "playground.llm_agents"
    label = "llm_agents"
    verbose_name = "LLM agents"

    def ready(self) -> None:
        # Imported here, once the app registry is ready (Django's documented place for it).
        from playground.llm_agents import agent, providers
        from playground.onboarding.answerers import Answerer, register_answerer
        from playground.onboarding.model_setup import ModelSetup, register
        from playground.runs.builtin_agents.support_triage import Checker, register_checker

        # The onboarding wizard offers the configured models for the agents it makes, and
        # its setup agent is answered by one of them when any is configured.
        register_answerer(Answerer(agent.KIND, providers.choices, agent.configure_from_wizard))
        register(
            ModelSetup(agent.setup_model, agent.propose_setup, agent.missing, agent.connections)
        )
        # Support triage's runs read the platform with a model and its servers when there are.
        register_checker(Checker(agent.triage_missing, agent.triage_check))

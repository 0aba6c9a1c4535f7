from django.apps import AppConfig


class LlmAgentsConfig(AppConfig):
    name = "llm_agents"
    verbose_name = "LLM agents"

    def ready(self) -> None:
        # Imported here, once the app registry is ready (Django's documented place for it).
        from llm_agents import agent  # noqa: F401  (registers the LLM agent kind)

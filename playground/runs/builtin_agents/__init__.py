"""The agents that ship with the playground; importing this package registers them."""

from importlib import import_module

from django.conf import settings

from playground.onboarding import configured_agent, setup_agent  # noqa: F401
from playground.runs.builtin_agents import deploy_assistant, schema_tester, support_triage  # noqa: F401

# Agents of your own: AGENT_MODULES=my_agents (comma-separated module paths).
for module in settings.AGENT_MODULES:
    import_module(module)

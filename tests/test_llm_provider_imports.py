"""A provider's client library is imported only when one of its models is used: an
OpenAI-compatible server never loads Anthropic's (seconds of the first message's "Thinking…")."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# A fresh interpreter, as the server is before its first message: Django set up, the LLM
# agent kind registered, then the first model built.
FIRST_MESSAGE = """
import json, sys
import django
django.setup()
from playground.llm_agents import agent, providers
[provider] = providers.configured_providers()
providers.build_model(provider, provider.models[0])
print(json.dumps(sorted(name for name in sys.modules if name.split(".")[0] in
    ("anthropic", "openai") or name.startswith(("pydantic_ai.models.", "pydantic_ai.providers.")))))
"""


def imported_after_first_model(**environment: str) -> list[str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("LLM_", "ANTHROPIC_"))
    }
    env |= {"DJANGO_SETTINGS_MODULE": "playground.settings", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", FIRST_MESSAGE],
        env=env | environment,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize(
    ("environment", "used", "not_loaded"),
    [
        (
            {"LLM_BASE_URL": "http://127.0.0.1:9/v1", "LLM_MODELS": "llama3.2"},
            "pydantic_ai.models.openai",
            ("anthropic", "pydantic_ai.models.anthropic", "pydantic_ai.providers.anthropic"),
        ),
        (
            {"ANTHROPIC_API_KEY": "sk-ant-test"},
            "pydantic_ai.models.anthropic",
            ("pydantic_ai.models.openai", "pydantic_ai.providers.openai"),
        ),
    ],
    ids=["openai-compatible only", "anthropic only"],
)
def test_only_the_configured_providers_library_is_imported(environment, used, not_loaded):
    modules = imported_after_first_model(**environment)
    assert used in modules
    for name in not_loaded:
        assert name not in modules, f"{name} was imported for a provider not configured"


# What every `manage.py` command loads (`migrate` also checks the URLs), before any turn.
STARTED = """
import json, sys
import django
django.setup()
from django.urls import resolve
resolve("/")
print(json.dumps(sorted({".".join(name.split(".")[:2]) for name in sys.modules})))
"""


def test_starting_django_imports_neither_the_mcp_sdk_nor_pydantic_ai():
    # Those two took 3 of the 5 CPU seconds of each command, and of each server start.
    env = os.environ | {"DJANGO_SETTINGS_MODULE": "playground.settings", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", STARTED],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout.splitlines()[-1]))
    assert "django" in loaded and "elicitation" in loaded and "playground.mcp_bridge" in loaded
    assert "playground.agui" in loaded
    assert not loaded & {"mcp", "mcp_types", "pydantic_ai", "openai", "anthropic", "ag_ui"}

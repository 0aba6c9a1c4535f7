"""Which models the playground offers: declared in the environment, built by pydantic-ai."""

import pytest
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.models.openai import OpenAIChatModel

from llm_agents import providers


def test_several_providers_are_offered_by_name(settings):
    settings.LLM_PROVIDERS = [
        {"name": "local", "base_url": "http://localhost:11434/v1", "models": ["llama3.2"]},
        {"name": "claude", "kind": "anthropic", "api_key": "sk-ant-zz", "models": ["claude-x"]},
    ]
    settings.LLM_BASE_URL, settings.LLM_MODELS = "http://localhost:8080/v1", ["qwen"]
    settings.ANTHROPIC_API_KEY = ""
    assert providers.choices() == [
        ("local/llama3.2", "llama3.2 (local)"),
        ("claude/claude-x", "claude-x (claude)"),
        ("default/qwen", "qwen (OpenAI-compatible server)"),
    ]
    local = providers.find("local", "llama3.2")
    assert isinstance(providers.build_model(local, "llama3.2"), OpenAIChatModel)
    claude = providers.find("claude", "claude-x")
    assert isinstance(providers.build_model(claude, "claude-x"), AnthropicModel)
    assert "sk-ant-zz" not in repr(
        claude
    )  # a key never shows in a repr (or a log line made of one)


def test_a_model_that_is_not_declared_is_not_found(settings):
    settings.LLM_PROVIDERS, settings.LLM_BASE_URL, settings.ANTHROPIC_API_KEY = [], "", ""
    with pytest.raises(LookupError, match="edit the agent"):
        providers.find("local", "llama3.2")


@pytest.mark.parametrize(
    ("declaration", "message"),
    [
        ({"models": ["a"]}, "needs a name and a list of models"),
        ({"name": "x", "models": ["a"]}, 'provider "x" needs a base_url'),
        ({"name": "x", "kind": "grpc", "models": ["a"]}, "unknown kind 'grpc'"),
    ],
)
def test_a_bad_declaration_says_what_is_missing(settings, declaration, message):
    settings.LLM_PROVIDERS = [declaration]
    with pytest.raises(providers.ProviderConfigError, match=message):
        providers.configured_providers()

"""Which models the playground offers: declared in the environment, built by pydantic-ai."""

import asyncio

import pytest
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.models.openai import OpenAIChatModel

from playground.llm_agents import providers


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


def test_the_turns_on_one_loop_share_a_model_and_its_client(settings):
    # A client took 0.1 s to make (its TLS context), twice a turn, before it was kept.
    settings.LLM_PROVIDERS, settings.ANTHROPIC_API_KEY = [], ""
    settings.LLM_BASE_URL, settings.LLM_MODELS = "http://localhost:8080/v1", ["qwen", "phi"]
    [local] = providers.configured_providers()

    async def two_turns():
        first, second = providers.build_model(local, "qwen"), providers.build_model(local, "qwen")
        assert first is second and first.client is second.client
        assert providers.build_model(local, "phi") is not first
        return first

    async def with_another_timeout(before):
        settings.LLM_TIMEOUT_SECONDS += 1  # a changed setting makes a model with it
        return providers.build_model(local, "qwen") is not before

    one_loop = asyncio.run(two_turns())
    assert asyncio.run(two_turns()) is not one_loop  # a client's connections belong to its loop

    async def changed():
        return await with_another_timeout(await two_turns())

    assert asyncio.run(changed())


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

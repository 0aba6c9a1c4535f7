"""The model providers this playground may call, as declared in the environment.

An agent's configuration names a provider and one of its models; the address and the key
stay here, read from settings, so nobody can point the server elsewhere from a form and no
key is ever stored with an agent.
"""

import asyncio
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from django.conf import settings

if TYPE_CHECKING:  # pydantic_ai is imported when a model is built, not when Django starts
    from pydantic_ai.models import Model

OPENAI_COMPATIBLE = "openai"
ANTHROPIC = "anthropic"
# The name agents store for the LLM_BASE_URL server (kept: existing agents name it).
SHORTHAND = "default"

SETUP_HELP = (
    "No model is configured. Set LLM_BASE_URL and LLM_MODELS (and LLM_API_KEY if the server "
    "needs one) for an OpenAI-compatible server, or ANTHROPIC_API_KEY for Anthropic, then "
    "restart the playground."
)
LOCAL_EXAMPLE = "LLM_BASE_URL=http://localhost:11434/v1 LLM_MODELS=llama3.2 make run"


@dataclass(frozen=True)
class Provider:
    name: str
    kind: str
    models: list[str]
    base_url: str = ""
    api_key: str = field(default="", repr=False)  # never shown, logged or stored

    def describe(self) -> str:
        """Return the provider as the docs name it: a declared provider by its name, the
        shorthands as what they are. Never its address: chat users read this."""
        if self.name == SHORTHAND and self.kind == OPENAI_COMPATIBLE:
            return "The OpenAI-compatible server (LLM_BASE_URL)"
        if self.name == ANTHROPIC and self.kind == ANTHROPIC:
            return "Anthropic"
        return f'The model provider "{self.name}"'

    @property
    def label(self) -> str:
        """Return the provider's name in a list of models."""
        if self.name == SHORTHAND and self.kind == OPENAI_COMPATIBLE:
            return "OpenAI-compatible server"
        return "Anthropic" if self.name == ANTHROPIC and self.kind == ANTHROPIC else self.name

    @property
    def address(self) -> str:
        """Return where its requests go (for staff: the admin's turn page, not the chat)."""
        return self.base_url or "https://api.anthropic.com"


class ProviderConfigError(ValueError):
    """LLM_PROVIDERS declares a provider this playground cannot use."""


def configured_providers() -> list[Provider]:
    """Return the providers declared in settings: LLM_PROVIDERS, then the shorthands."""
    providers = [_from_declaration(item) for item in settings.LLM_PROVIDERS]
    if settings.LLM_BASE_URL and settings.LLM_MODELS:
        providers.append(
            Provider(
                name=SHORTHAND,
                kind=OPENAI_COMPATIBLE,
                models=list(settings.LLM_MODELS),
                base_url=settings.LLM_BASE_URL,
                api_key=settings.LLM_API_KEY,
            )
        )
    if settings.ANTHROPIC_API_KEY:
        providers.append(
            Provider(
                name=ANTHROPIC,
                kind=ANTHROPIC,
                models=list(settings.ANTHROPIC_MODELS),
                api_key=settings.ANTHROPIC_API_KEY,
            )
        )
    return providers


def _from_declaration(item: dict) -> Provider:
    try:
        name, models = str(item["name"]), [str(model) for model in item["models"]]
    except (KeyError, TypeError) as error:
        raise ProviderConfigError(
            f"Each LLM_PROVIDERS entry needs a name and a list of models (missing {error})."
        ) from None
    kind = item.get("kind", OPENAI_COMPATIBLE)
    if kind not in (OPENAI_COMPATIBLE, ANTHROPIC):
        raise ProviderConfigError(f'LLM_PROVIDERS: provider "{name}" has unknown kind {kind!r}.')
    if kind == OPENAI_COMPATIBLE and not item.get("base_url"):
        raise ProviderConfigError(f'LLM_PROVIDERS: provider "{name}" needs a base_url.')
    return Provider(name, kind, models, item.get("base_url", ""), item.get("api_key", ""))


def choices() -> list[tuple[str, str]]:
    """Return the (value, label) pairs of every configured model, value "provider/model"."""
    return [
        (f"{provider.name}/{model}", f"{model} ({provider.label})")
        for provider in configured_providers()
        for model in provider.models
    ]


def find(provider_name: str, model_name: str) -> Provider:
    """Return the configured provider offering that model, or raise LookupError."""
    for provider in configured_providers():
        if provider.name == provider_name and model_name in provider.models:
            return provider
    raise LookupError(
        f'The model "{model_name}" is not configured on this playground any more: edit the '
        "agent (at the top of its chat) and pick one of the models offered."
    )


def build_model(provider: Provider, model_name: str) -> "Model":
    """Return the library's model for one of a provider's models, with bounded retries.

    Kept per event loop and reused by every turn on it: building one makes a client with a
    TLS context and a connection pool (twice a turn: the run, and its replay after each
    answer), and its connections stay open for the next request."""
    limits = {"max_retries": settings.LLM_MAX_RETRIES, "timeout": settings.LLM_TIMEOUT_SECONDS}
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return _new_model(provider, model_name, limits)  # no loop to keep it on
    # The key holds everything the model is made from (settings may change, as in tests).
    key = (provider.kind, provider.base_url, provider.api_key, model_name, *limits.values())
    models = _MODELS.setdefault(loop, {})
    if key not in models:
        models[key] = _new_model(provider, model_name, limits)
    return models[key]


# A client's connections belong to the loop they were opened on; a loop that is gone takes
# its models with it.
_MODELS: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple, Model]]" = (
    weakref.WeakKeyDictionary()
)


def _new_model(provider: Provider, model_name: str, limits: dict) -> "Model":
    # Each client library is imported here, when a model of its kind is first used, and only
    # that kind's: at the top they slowed the start of every process, and importing
    # Anthropic's for an OpenAI-compatible server slowed the first message.
    if provider.kind == ANTHROPIC:
        from anthropic import AsyncAnthropic
        from pydantic_ai.models.anthropic import AnthropicModel
        from pydantic_ai.providers.anthropic import AnthropicProvider

        client = AsyncAnthropic(api_key=provider.api_key, **limits)
        return AnthropicModel(model_name, provider=AnthropicProvider(anthropic_client=client))
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    from playground.llm_agents.openai_client import ChatClient

    # Local servers take any key, and the client insists on one.
    client = ChatClient(
        base_url=provider.base_url, api_key=provider.api_key or "not-needed", **limits
    )
    return OpenAIChatModel(model_name, provider=OpenAIProvider(openai_client=client))

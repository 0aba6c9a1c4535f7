"""Who answers an agent the wizard made: its own rules, or a model an upper app offers.

The wizard stays deterministic: it only asks which one and writes the choice into the new
agent's configuration. An app above the playground (llm_agents) registers what it offers.
"""

from collections.abc import Callable
from dataclasses import dataclass

OWN_RULES = "rules"
QUESTION = "Who should answer this agent's messages?"


@dataclass(frozen=True)
class Answerer:
    kind: str  # the agent implementation that answers
    choices: Callable[[], list[tuple[str, str]]]  # (value, label) pairs on offer now
    configure: Callable[[dict, str], dict]  # the agent's configuration for a choice


ANSWERERS: list[Answerer] = []


def register_answerer(answerer: Answerer) -> None:
    ANSWERERS.append(answerer)


def offered() -> list[list[str]]:
    """Return [value, label] of every choice on offer, besides the agent's own rules."""
    return [[value, label] for answerer in ANSWERERS for value, label in answerer.choices()]


def schema(choices: list[list[str]], default: str | None = None) -> dict:
    """Return the question's schema: the agent's own rules first, then each model; `default`
    (the setup agent's model) is pre-selected when it is on offer."""
    options = [{"const": OWN_RULES, "title": "Its own rules (no model)"}]
    options += [{"const": value, "title": label} for value, label in choices]
    chosen = default if default in {value for value, _ in choices} else OWN_RULES
    answered_by = {"type": "string", "title": "Answered by", "oneOf": options, "default": chosen}
    return {
        "type": "object",
        "properties": {"answered_by": answered_by},
        "required": ["answered_by"],
    }


def kind_for(choice: str, own_kind: str) -> str:
    """Return the agent kind that answers for a choice (`own_kind` for the agent's rules)."""
    return next(
        (answerer.kind for answerer in ANSWERERS if choice in dict(answerer.choices())), own_kind
    )


def label_for(choice: str) -> str:
    """Return how a person reads a choice, e.g. "llama3.2 (OpenAI-compatible server)"."""
    return next((label for value, label in offered() if value == choice), choice)


def apply(kind: str, config: dict, choice: str) -> tuple[str, dict]:
    """Return the agent's kind and configuration for the choice (unchanged for its own rules)."""
    for answerer in ANSWERERS:
        if choice in dict(answerer.choices()):
            return answerer.kind, answerer.configure(config, choice)
    return kind, config

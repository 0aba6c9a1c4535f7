"""Where a wizard-made agent's questions and approvals go: to its owner (the default), a
person, or a group; the configuration card's two fields, read into the agent's routing
defaults (`{"routing": {"questions": [...], "approvals": [...]}}`, read by the runtime).

The names are checked by playground.inbox.routing, the same rules as an agent's `ask=[...]`: a name
the
owner may not address reads exactly like one that does not exist.
"""

from __future__ import annotations

from typing import Any

from playground.inbox import routing

OWNER, PERSON, GROUP = "owner", "person", "group"
PREFIX = {PERSON: "user:", GROUP: "group:"}
MAX_NAME_CHARS = 150


def fields() -> dict[str, Any]:
    """Return the card's fields: whom to ask, and the person's or group's name."""
    return {
        "questions_to": {
            "type": "string",
            "title": "Its questions and approvals go to",
            "oneOf": [
                {"const": OWNER, "title": "Me"},
                {"const": PERSON, "title": "A person"},
                {"const": GROUP, "title": "A group"},
            ],
            "default": OWNER,
        },
        "questions_to_name": {
            "type": "string",
            "title": "Their username, or the group's name",
            "description": "They see its questions in their inbox and may answer; so may you.",
            "maxLength": MAX_NAME_CHARS,
        },
    }


def form_values(config: dict[str, Any]) -> dict[str, str]:
    """Return the card's values for a configuration's routing."""
    names = (config.get("routing") or {}).get("questions") or []
    for kind, prefix in PREFIX.items():
        if names and names[0].startswith(prefix):
            return {"questions_to": kind, "questions_to_name": names[0].removeprefix(prefix)}
    return {"questions_to": OWNER}


def read(content: dict[str, Any]) -> tuple[dict[str, list[str]] | None, dict[str, str]]:
    """Return (routing defaults or None for the owner, problems by field) for card values."""
    kind = content.get("questions_to") or OWNER
    if kind == OWNER:
        return None, {}
    if kind not in PREFIX:
        return None, {"questions_to": "Choose me, a person or a group."}
    name = content.get("questions_to_name")
    name = name.strip() if isinstance(name, str) else ""
    if not name:
        what = "the person's username" if kind == PERSON else "the group's name"
        return None, {"questions_to_name": f"Type {what}, or send its questions to you."}
    names = [PREFIX[kind] + name]
    return {"questions": names, "approvals": names}, {}


def problems(config: dict[str, Any], owner) -> dict[str, str]:
    """Return what is wrong with a configuration's routing for this owner, by card field."""
    names = (config.get("routing") or {}).get("questions")
    if not names or owner is None or not isinstance(routing.resolve(owner, names), str):
        return {}
    kind, name = names[0].split(":", 1)
    allowed = "someone who shares a group with you" if kind == "user" else "one of your groups"
    who = "person" if kind == "user" else "group"
    return {
        "questions_to_name": f'No {who} named "{name[:80]}" that this agent may ask: it may '
        f"ask {allowed}, or a name this playground allows."
    }


def layout(values: dict[str, Any]) -> list[str]:
    """Return the routing fields that apply to these card values."""
    if values.get("questions_to") in PREFIX:
        return ["questions_to", "questions_to_name"]
    return ["questions_to"]

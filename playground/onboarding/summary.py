"""Say in plain words what a configured agent does: what it reads, when, and where results go."""

from __future__ import annotations

from typing import Any

from playground.onboarding import catalog
from playground.onboarding.schedules import describe_trigger

ITEMS = {
    "zendesk": "Zendesk tickets",
    "intercom": "Intercom conversations",
    "freshdesk": "Freshdesk tickets",
    "helpscout": "Help Scout conversations",
    "front": "Front conversations",
    "github": "GitHub issues and pull requests",
    "slack": "Slack messages",
    "email": "emails",
}


def items(config: dict[str, Any]) -> str:
    """Return what the agent reads, e.g. "Zendesk tickets"."""
    return ITEMS.get(config.get("platform") or "", "new work")


def platform_title(config: dict[str, Any]) -> str:
    option = catalog.find(catalog.PLATFORMS, config.get("platform"))
    return option.title if option else "the platform"


def runs_on_its_own(config: dict[str, Any]) -> bool:
    """Return whether the configuration has a schedule (not only when someone asks)."""
    return (config.get("trigger") or {}).get("kind", "on_demand") != "on_demand"


def when(config: dict[str, Any]) -> str:
    """Return the schedule, e.g. "every weekday at 09:00 (Berlin time)"."""
    trigger = config.get("trigger") or {}
    schedule = describe_trigger(trigger) or "when someone asks"
    if trigger.get("kind") not in catalog.TIMED_TRIGGERS:
        return schedule
    zone = config.get("timezone")
    if not catalog.is_timezone(zone) or zone == "UTC":
        return f"{schedule} (UTC)"
    return f"{schedule} ({catalog.timezone_title(zone)} time)"


def delivery(config: dict[str, Any], *, first_person: bool = False, future: bool = False) -> str:
    """Return where results go, e.g. "posts what it finds in #support on Slack" ("post what
    it finds" in the `future`, after "will")."""
    destination = config.get("destination") or {}
    kind = destination.get("kind")
    verb, me = _verb(first_person or future), "I" if first_person else "it"
    finds = _verb(first_person)("find")
    if kind == "slack":
        return f"{verb('post')} what {me} {finds} in {destination.get('channel')} on Slack"
    if kind == "email":
        return f"{verb('email')} what {me} {finds} to {destination.get('address')}"
    if kind == "slack_dm":
        return f"{verb('send')} you what {me} {finds} as a Slack direct message"
    if kind == "github_comment":
        return f"{verb('comment')} on the GitHub issue or pull request {me} worked on"
    return f"{verb('reply')} here in the chat"


def what_it_does(
    config: dict[str, Any], *, first_person: bool = False, future: bool = False
) -> str:
    """Return the whole plan as one clause: what it reads, when, and where results go ("will"
    comes before it in the `future`: "read Zendesk tickets … and post what it finds …")."""
    verb = _verb(first_person or future)
    return (
        f"{verb('read')} {items(config)} {when(config)} and "
        f"{delivery(config, first_person=first_person, future=future)}"
    )


def _verb(first_person: bool):
    def form(word: str) -> str:
        if first_person:
            return word
        return word[:-1] + "ies" if word.endswith("y") else word + "s"

    return form

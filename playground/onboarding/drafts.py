"""Draft agents on the server: start one, keep the wizard's answers on it, turn it into an agent.

A draft is an Agent row with `is_draft=True` whose implementation is the setup agent
(`kind="setup"`); its `config["draft"]` holds the wizard's answers so far, so a later turn (or
a later visit) carries on from them. Creating the agent rewrites the same row: the onboarding
conversation stays where it is and the next turn is answered by the configured agent.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.db import transaction
from django.urls import reverse
from django.utils.text import slugify

from playground.onboarding import answerers
from playground.runs.models import Agent, Conversation, Schedule
from playground.schedules import scheduler

SETUP_KIND = "setup"
CONFIGURED_KIND = "configured"
SETUP_NAME = "Agent setup"
SETUP_DESCRIPTION = "Describe the agent you want; I ask about anything unclear."
# Addresses the wizard's own URLs use: never a created agent's slug.
RESERVED_SLUGS = frozenset({"new"})


def start_draft(user) -> Conversation:
    """Return the person's untouched wizard conversation, or start a new draft and its chat."""
    untouched = Conversation.objects.filter(
        owner=user, agent__owner=user, agent__is_draft=True, turns__isnull=True
    ).first()
    if untouched is not None:
        return untouched
    with transaction.atomic():
        agent = Agent.objects.create(
            slug=f"draft-{secrets.token_hex(6)}",
            name=SETUP_NAME,
            description=SETUP_DESCRIPTION,
            kind=SETUP_KIND,
            owner=user,
            is_draft=True,
        )
        return Conversation.objects.create(owner=user, agent=agent)


def saved_draft(agent_id: int) -> dict[str, Any] | None:
    """Return the wizard's answers kept on a draft agent, or None."""
    config = Agent.objects.filter(pk=agent_id, is_draft=True).values_list("config", flat=True)
    return (config.first() or {}).get("draft")


def save_draft(agent_id: int, draft: dict[str, Any]) -> None:
    """Keep the wizard's answers on the draft agent (a created agent is left alone)."""
    Agent.objects.filter(pk=agent_id, is_draft=True).update(config={"draft": draft})


def create_agent(
    agent_id: int,
    config: dict[str, Any],
    answered_by: str = answerers.OWN_RULES,
    paused: bool = False,
) -> dict[str, str]:
    """Turn the draft into a real agent with this configuration; return its name and address.

    `answered_by` is the wizard's last answer: the agent's own rules, or a model on offer.
    `paused`: the agent cannot work yet, so its schedule is made paused (no run that could
    only say what it lacks); Resume on its page starts it.

    Runs once per turn (a recorded step), and is safe to run again: an agent that was already
    created is returned as it is.
    """
    with transaction.atomic():
        agent = Agent.objects.select_for_update().get(pk=agent_id)
        if agent.is_draft:
            agent.slug = unique_slug(config["name"])
            agent.name = config["name"]
            agent.description = config.get("purpose") or ""
            agent.kind, agent.config = answerers.apply(CONFIGURED_KIND, config, answered_by)
            agent.is_draft = False
            agent.save()  # its owner's schedule is made with it (scheduler.sync_agent)
            if paused:
                for schedule in Schedule.objects.filter(agent=agent):
                    scheduler.pause(schedule)
    return {
        "name": agent.name,
        "slug": agent.slug,
        "url": reverse("agent_page", args=[agent.slug]),
        "export_url": reverse("export_agent_config", args=[agent.slug]),
    }


def unique_slug(name: str) -> str:
    """Return a slug for the name that no agent has yet: "zendesk-watcher", "zendesk-watcher-2"."""
    base = slugify(name)[:70].strip("-") or "agent"
    taken = set(Agent.objects.filter(slug__startswith=base).values_list("slug", flat=True))
    taken |= RESERVED_SLUGS
    candidate, number = base, 1
    while candidate in taken:
        number += 1
        candidate = f"{base}-{number}"
    return candidate

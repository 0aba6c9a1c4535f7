"""What a chat's header shows: worked out in one place for a page load and for the push that
shows the wizard's new agent in every open tab, so the two cannot differ."""

from django.template.loader import render_to_string
from django.urls import reverse

from playground.runs.agents import REGISTRY
from playground.runs.models import Conversation
from playground.schedules import scheduler


def header_context(conversation: Conversation, person, here: str) -> dict:
    """Return what the header of `conversation` shows `person`, on the page at path `here`
    (where its Edit link comes back to)."""
    agent = conversation.agent
    spec = REGISTRY.get(agent.kind)
    read_only = conversation.owner_id != person.pk
    owner_view = not agent.is_draft and not read_only  # not while in the onboarding wizard
    return {
        "conversation": conversation,
        "agent": agent,
        "read_only": read_only,
        # When the agent runs on its own: next runs, the last outcome, Pause/Resume, Run now.
        "panel": scheduler.overview(agent, person) if owner_view else None,
        "edit_url": spec.edit_url if spec and owner_view and agent.owner_id == person.pk else "",
        "shows_wire": bool(spec and spec.offers_wire(agent)) and not read_only,
        "here": here,
    }


def render_created(conversation_id: int, person) -> str:
    """Return the header of the agent the wizard has just created, as its page shows it, to
    replace the wizard's in every open tab (which then show the agent's address)."""
    conversation = Conversation.objects.select_related("agent").get(pk=conversation_id)
    here = reverse("agent_page", args=[conversation.agent.slug])
    context = header_context(conversation, person, here) | {"oob": True}
    return render_to_string("playground/onboarding_header.html", context)

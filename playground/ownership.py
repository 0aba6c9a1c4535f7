"""One place that decides what a person may see: their own conversations, else a 404."""

from django.shortcuts import get_object_or_404

from elicitation.models import Part
from playground.models import Conversation


def get_conversation_for_user(user, conversation_id: int) -> Conversation:
    """Return the person's conversation, or raise Http404 (also for someone else's)."""
    return get_object_or_404(
        Conversation.objects.select_related("agent"), pk=conversation_id, owner=user
    )


def get_part_for_user(user, part_id: int) -> Part:
    """Return a part of one of the person's conversations, or raise Http404."""
    return get_object_or_404(
        Part.objects.select_related("conversation__agent", "settled_by"),
        pk=part_id,
        conversation__owner=user,
    )

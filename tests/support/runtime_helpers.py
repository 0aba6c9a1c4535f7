"""Drive conversations through the real views, as a browser would (agent runs happen inline)."""

import asyncio

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.http import HttpResponse
from django.test import Client

from elicitation.models import Part
from playground.chat.push import group_for
from playground.runs.models import Agent, Conversation, Message


def agent_row(slug: str) -> Agent:
    """Return the row for a registered agent implementation, creating it if needed."""
    agent, _ = Agent.objects.get_or_create(slug=slug, defaults={"name": slug, "kind": slug})
    return agent


def start(owner, slug: str) -> Conversation:
    return Conversation.objects.create(owner=owner, agent=agent_row(slug))


def send(client: Client, conversation: Conversation, text: str, **extra) -> None:
    response = client.post(f"/c/{conversation.pk}/send", {"text": text, **extra})
    assert response.status_code in (200, 302), response.content


def answer(client: Client, part: Part, action: str = "accept", **fields) -> HttpResponse:
    """Post an answer to a part as its form does (an htmx request); return the response."""
    data = {"action": action, **{f"answer.{name}": value for name, value in fields.items()}}
    return client.post(f"/parts/{part.pk}/settle", data, HTTP_HX_REQUEST="true")


def said(conversation: Conversation) -> list[str]:
    """Return what the agent said in the conversation, in order."""
    return list(
        Message.objects.filter(turn__conversation=conversation)
        .order_by("turn__index", "call_index")
        .values_list("text", flat=True)
    )


def pending(conversation: Conversation) -> Part:
    return Part.objects.get(conversation=conversation, state=Part.State.PENDING)


def open_tab(conversation_id: int):
    """Join the conversation's group as an open tab's socket does; return a call that gives
    all it was sent, once nothing more comes for half a second."""
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(group_for(conversation_id), channel)

    async def pushes() -> list[str]:
        sent = []
        while True:
            try:
                sent.append((await asyncio.wait_for(layer.receive(channel), 0.5))["html"])
            except TimeoutError:
                return sent

    return async_to_sync(pushes)

"""External agents: agents that run outside and act through the API, as database operations.

An external agent has no runner here. A person's message to it is a turn the caller reads
through the API, so its turns finish at once; settling one of its questions wakes the API's
waiters and webhooks instead of resuming a run (a finished turn has nothing to resume).

What the agent says and asks lands in the conversation's latest turn, at the next call index,
through the same path a built-in agent's calls take (`build_part`, the same fragments). An
agent that speaks first opens a turn of its own, pushed ahead of what it says, so a tab open
on the empty conversation has somewhere to put it.
"""

import hashlib
import json
from dataclasses import dataclass
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.text import slugify

from elicitation import contract
from elicitation.models import Part
from elicitation.settle import settle_part
from playground.api.models import ApiToken, ExternalConversation, IdempotencyKey
from playground.chat import fragments
from playground.chat.push import push_html_soon, tell_audience_soon
from playground.connections import services
from playground.runs.agents import agent
from playground.runs.models import Agent, Conversation, Message, Step, Turn
from playground.runs.runtime import build_part, connection_card, connection_message, offered_actions

KIND = "external"
IDEMPOTENCY_KEPT = timedelta(hours=24)


@agent(KIND, name="External agent", description="Runs outside, over the HTTP API.", listed=False)
async def external(ctx, message: str) -> None:
    """Do nothing: the caller reads the person's message through the API."""


class KeyReusedError(Exception):
    """An Idempotency-Key came again with another request; the message says what differs."""


@dataclass(frozen=True)
class Asked:
    part: Part
    replayed: bool  # an earlier call with the same Idempotency-Key made it


@dataclass(frozen=True)
class Call:
    """Where an agent's next call goes: a turn and its next free call index."""

    turn: Turn
    index: int
    opened: bool  # the call opened the turn: no tab shows it yet


def conversations_of(token: ApiToken):
    """Return the external-agent conversations of the token's owner (nobody else's)."""
    conversations = Conversation.objects.owned_by(token.owner).filter(agent__kind=KIND)
    return conversations.select_related("agent")


def open_conversation(
    token: ApiToken,
    agent_name: str,
    title: str = "",
    description: str = "An external agent, over the HTTP API.",
) -> Conversation:
    """Open a conversation with the external agent called `agent_name` (made on first use,
    with `description`)."""
    with transaction.atomic():
        agent_row = Agent.objects.filter(owner=token.owner, kind=KIND, name=agent_name).first()
        if agent_row is None:
            agent_row = Agent.objects.create(
                owner=token.owner,
                kind=KIND,
                name=agent_name,
                slug=_free_slug(agent_name),
                description=description,
            )
        conversation = Conversation.objects.create(owner=token.owner, agent=agent_row, title=title)
        ExternalConversation.objects.create(conversation=conversation, token=token)
    return conversation


def _free_slug(name: str) -> str:
    base = (slugify(name) or "agent")[:60]
    slug, n = base, 1
    while Agent.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


def say(conversation: Conversation, text: str) -> Message:
    """Add an agent message (markdown) to the conversation and show it in every open tab."""
    with transaction.atomic():
        call = _next_call(conversation)
        message = Message.objects.create(turn=call.turn, call_index=call.index, text=text)
    _show(call, fragments.render_message(message))
    return message


def person_messages(conversation: Conversation, after: int) -> list[Turn]:
    """Return what the person said in the conversation after the message with id `after`."""
    turns = conversation.turns.exclude(text="").filter(pk__gt=after)
    return list(turns.order_by("pk")[:100])


def ask(
    token: ApiToken,
    conversation: Conversation,
    body: dict,
    idempotency_key: str = "",
    *,
    requires_other: bool = False,
) -> Asked:
    """Store a question (pending, or degraded with its reason) and show it: a `request_input`
    form, or with `body["kind"] == "approval"` an approval card listing `body["details"]`;
    `requires_other` (four eyes) leaves the answer to the people `body["assignees"]` names.

    With an idempotency key, a retry of the same request (same conversation, same body)
    returns the same part; any difference raises KeyReusedError and stores nothing. Keys are
    kept for 24 hours.
    """
    body_hash = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
    try:
        return _ask(token, conversation, body, idempotency_key, body_hash, requires_other)
    except IntegrityError:
        # The same key came twice at once and the other call committed its key first (the
        # unique constraint refused this one, and its part went with the rollback): this
        # call is the other's retry, and now finds it.
        return _ask(token, conversation, body, idempotency_key, body_hash, requires_other)


def _ask(
    token: ApiToken,
    conversation: Conversation,
    body: dict,
    idempotency_key: str,
    body_hash: str,
    requires_other: bool,
) -> Asked:
    with transaction.atomic():
        if idempotency_key:
            IdempotencyKey.objects.filter(created_at__lt=timezone.now() - IDEMPOTENCY_KEPT).delete()
            earlier = (
                IdempotencyKey.objects.select_for_update()
                .filter(token=token, key=idempotency_key)
                .select_related("part__conversation__agent")
                .first()
            )
            if earlier is not None:
                _check_same_request(earlier, conversation, body_hash)
                return Asked(earlier.part, replayed=True)
        call = _next_call(conversation)
        payload = {"message": body["message"], "requestedSchema": body["requestedSchema"]}
        if body.get("details"):
            payload["details"] = body["details"]  # what an approval card lists
        part = build_part(
            turn=call.turn,
            call_index=call.index,
            kind_name=body.get("kind") or "elicitation",
            payload=payload,
            value=body.get("value"),
            allowed_actions=offered_actions(body.get("allowedActions")),
            intent=body.get("intent") or "",
            tool_call_id=f"api_{call.turn.pk}_{call.index}",
            ask=body.get("assignees"),
            requires_other=requires_other,
        )
        part.pushed_at = timezone.now()  # in the INSERT, like a run's: the push is best effort
        part.save()
        if idempotency_key:
            IdempotencyKey.objects.create(
                token=token, key=idempotency_key, body_hash=body_hash, part=part
            )
        transaction.on_commit(lambda: _show_part(call, part, conversation))
        if part.is_pending:
            transaction.on_commit(lambda: tell_audience_soon(part))
    return Asked(part, replayed=False)


def request_connection(conversation: Conversation, service: str, reason: str | None) -> Part:
    """Ask the person for a connection to `service` with a `connection` card (the one a
    built-in agent's `ctx.request_connection` shows). Its envelope is a reference only: the
    credential goes to the vault and never through the API.

    Raise `services.UnknownServiceError` (or `ServicesFileError`) when it is not declared.
    """
    declared = services.get(service)
    with transaction.atomic():
        call = _next_call(conversation)
        message = connection_message(declared, conversation.agent.name, reason)
        value = connection_card(conversation.owner, declared)
        part = build_part(
            turn=call.turn,
            call_index=call.index,
            kind_name="connection",
            payload={"message": message, **value},
            value=value,
            allowed_actions=offered_actions(None),
            tool_call_id=f"api_{call.turn.pk}_{call.index}",
        )
        part.pushed_at = timezone.now()
        part.save()
        transaction.on_commit(lambda: _show_part(call, part, conversation))
        if part.is_pending:
            transaction.on_commit(lambda: tell_audience_soon(part))
    return part


def _check_same_request(earlier: IdempotencyKey, conversation: Conversation, body_hash: str):
    """Raise KeyReusedError, saying what differs, unless this is the key's first request again."""
    differences = []
    if earlier.part.conversation_id != conversation.pk:
        differences.append(f"conversation {earlier.part.conversation_id}")
    if earlier.body_hash != body_hash:
        differences.append("a different body")
    if differences:
        raise KeyReusedError(
            f"This Idempotency-Key was first used with {' and '.join(differences)}; "
            "use a new key for each new request."
        )


def _show(call: Call, html: str) -> None:
    """Push an item to every open tab, after the turn it opened (a tab has no place for it yet)."""
    if call.opened:
        html = fragments.render_turn(call.turn) + html
    push_html_soon(call.turn.conversation_id, html)


def _show_part(call: Call, part: Part, conversation: Conversation) -> None:
    """Show a new question in every open tab, with the status line (and so the tab's title)
    counting it: no run of ours pushes one, as a built-in agent's does when it parks."""
    _show(call, fragments.render_new_part(part) + fragments.render_status(conversation))


def show_status(sender, part: Part, **kwargs) -> None:
    """After an external agent's question settles: every open tab's status line (and title)
    counts one fewer waiting question."""
    if part.conversation.agent.kind == KIND:
        push_html_soon(part.conversation_id, fragments.render_status(part.conversation))


def cancel(part: Part) -> bool:
    """Cancel a pending question (every open tab shows it cancelled); False if it had settled."""
    return settle_part(part, contract.cancel()) is not None


def _next_call(conversation: Conversation) -> Call:
    """Inside a transaction: return the latest turn and its next free call index.

    The conversation row is locked first, so two calls at once never take the same index.
    An agent that speaks first gets a turn of its own, with no message from the person.
    """
    Conversation.objects.select_for_update().filter(pk=conversation.pk).first()
    turn = conversation.turns.order_by("-index").first()
    if turn is None:
        turn = Turn.objects.create(
            conversation=conversation, index=0, text="", status=Turn.Status.DONE
        )
        return Call(turn, 0, opened=True)
    used = [
        model.objects.filter(turn=turn).aggregate(last=Max("call_index"))["last"]
        for model in (Message, Part, Step)
    ]
    index = max((index for index in used if index is not None), default=-1) + 1
    return Call(turn, index, opened=False)

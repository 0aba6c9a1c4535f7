"""The transcript and the fragments pushed to open tabs.

Each pushed fragment carries `hx-swap-oob`, and each item an id and a `data-state`, so a copy
a tab already shows in the same state is skipped (see static/playground.js): pushes are
idempotent and a reconnecting tab can simply be sent everything again.
"""

from django.template.loader import render_to_string

from elicitation.models import Part
from elicitation.rendering import render_part_html
from playground.runs.models import Conversation, Message, Step, Turn


def transcript(conversation: Conversation, *, disabled: bool = False, viewer=None) -> list[dict]:
    """Return the turns with their messages, steps and rendered parts, in a constant number of
    queries.

    `disabled` renders pending forms read-only (the admin's review of the conversation); with
    a `viewer`, so are the questions that person may not answer (routed to someone else).
    """
    turns = list(conversation.turns.all())
    items: dict[int, list] = {turn.pk: [] for turn in turns}
    for message in Message.objects.filter(turn__conversation=conversation):
        items[message.turn_id].append((message.call_index, "message", message))
    by_pk = {turn.pk: turn for turn in turns}
    for step in Step.objects.filter(turn__conversation=conversation, shown=True).order_by():
        step.turn = by_pk[step.turn_id]  # whether its run still goes: no query per step
        items[step.turn_id].append((step.call_index, "step", step))
    parts = list(Part.objects.filter(conversation=conversation).select_related("settled_by"))
    answerable = None
    if viewer is not None:
        # Of the parts read just above: a question the run asked in between is not in the
        # page (its push brings it), rather than in it and read-only as if someone else's.
        pending = Part.objects.filter(pk__in=[part.pk for part in parts if part.is_pending])
        answerable = set(pending.answerable_by(viewer).values_list("pk", flat=True))
    asked_again = _asked_again(parts)
    for part in parts:
        part.conversation = conversation  # the agent's name comes from here: no query per part
        corrected = part.call_index < asked_again.get(part.turn_id, -1)
        locked = answerable is not None and part.is_pending and part.pk not in answerable
        html = render_part_html(part, disabled=disabled or locked, corrected=corrected)
        items[part.turn_id].append((part.call_index, "part", html))
    return [
        {"turn": turn, "items": [(kind, obj) for _, kind, obj in sorted(items[turn.pk])]}
        for turn in turns
    ]


def _asked_again(parts) -> dict[int, int]:
    """Return, per turn, the call index of its last part that is not degraded: a degraded
    part before it was corrected by the agent."""
    last: dict[int, int] = {}
    for part in parts:
        if part.state != Part.State.DEGRADED:
            last[part.turn_id] = max(last.get(part.turn_id, -1), part.call_index)
    return last


def render_corrected(parts: list[Part]) -> str:
    """Return degraded parts folded away, now that the agent asked again in a way it can be
    shown: each replaces the copy its turn shows."""
    return "".join(append_to_turn(p.turn_id, render_part_html(p, corrected=True)) for p in parts)


def append_to_turn(turn_id: int, html: str) -> str:
    """Wrap an item's HTML so a push adds it to its turn (or replaces the copy shown)."""
    return f'<div hx-swap-oob="beforeend:#turn-{turn_id}-items">{html}</div>'


def _message_html(message: Message) -> str:
    return render_to_string("playground/conversation.html#message", {"message": message})


def _step_html(step: Step) -> str:
    return render_to_string("playground/conversation.html#step", {"step": step})


def render_step(step: Step) -> str:
    """Return a step as it starts or ends, added to its turn (or replacing the copy shown)."""
    return append_to_turn(step.turn_id, _step_html(step))


def _item_html(kind: str, obj) -> str:
    if kind == "message":
        return _message_html(obj)
    return _step_html(obj) if kind == "step" else obj


def render_message(message: Message) -> str:
    """Return a new agent message, appended to its turn."""
    return append_to_turn(message.turn_id, _message_html(message))


def render_new_part(part: Part) -> str:
    """Return a part its run just created: the run already holds what rendering needs."""
    return append_to_turn(part.turn_id, render_part_html(part))


def render_turn(turn: Turn) -> str:
    """Return a turn's section (the person's message), appended to the transcript."""
    html = render_to_string(
        "playground/conversation.html#turn", {"entry": {"turn": turn, "items": []}}
    )
    return f'<div hx-swap-oob="beforeend:#transcript">{html}</div>'


def render_live_text(turn: Turn, *, thinking: bool = False) -> str:
    """Return a turn's reply so far (a streaming model), to replace the one a tab shows."""
    context = {"turn": turn, "thinking": thinking, "oob": True}
    return render_to_string("playground/conversation.html#live", context)


def render_status(conversation: Conversation, *, working: bool | None = None) -> str:
    """Return the conversation's status line, to replace the one a tab shows."""
    context = status_context(conversation, working=working)
    return render_to_string("playground/conversation.html#status", context | {"oob": True})


def status_context(conversation: Conversation, *, working: bool | None = None) -> dict:
    """Return whether the agent is working and how many questions wait for the person.

    A runner that knows it is working says so, which saves asking the database.
    """
    # Two plain lookups, not one query through the parts: Django took longer to build that
    # one (an exclude across a relation) than SQLite to answer it, at the end of every run.
    pending = Part.objects.filter(conversation_id=conversation.pk, state=Part.State.PENDING)
    waiting_in = list(pending.order_by().values_list("turn_id", flat=True))
    if working is None:
        active = Turn.objects.filter(
            conversation_id=conversation.pk, status__in=[Turn.Status.QUEUED, Turn.Status.RUNNING]
        )
        # A run that holds a live session while its question waits is waiting for the
        # person, not working (an MCP server's question on a legacy session).
        working = any(
            status == Turn.Status.QUEUED or pk not in waiting_in
            for pk, status in active.order_by().values_list("pk", "status")
        )
    return {"conversation": conversation, "working": working, "waiting": len(waiting_in)}


def resync(conversation_id: int) -> str:
    """Return the whole conversation as pushes, for a tab that (re)connects."""
    conversation = Conversation.objects.select_related("agent", "owner__time_zone").get(
        pk=conversation_id
    )
    html = []
    for entry in transcript(conversation):
        html.append(render_turn(entry["turn"]))
        items = (_item_html(kind, obj) for kind, obj in entry["items"])
        html.append(append_to_turn(entry["turn"].pk, "".join(items)))
    html.append(render_status(conversation))
    return "".join(html)

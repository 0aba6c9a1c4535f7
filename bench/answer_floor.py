"""The floor of an answer (issue 50): the least an answer must do to keep the guarantees ours
keeps, done the plainest way, in the bench and never in the product. answer_latency,
settle_throughput and agui_roundtrip read ours against it.

- The answer is validated against the question's own schema, with jsonschema.
- One transaction: one conditional UPDATE of the answer (pending, the person's own question:
  exactly one winner) and one of the turn (out of waiting: it is not left asking).
- The part's own template renders the chip, and it is pushed through the same channel layer to
  the conversation's open tabs, after the commit.
- A waiter reads the turn and its rows back with plain ORM queries (no future handed the answer
  in memory): embedded, a task on the web process's loop, started with the commit; in
  scale-out, another process (the bench's, LISTENing as workers do: `bench.client.
  floor_waiters`) woken by a NOTIFY sent with the commit.

The turn is marked done, not queued: the waiter stands in for the run, so no runner takes it.
Its fields are read as text (the bench's questions ask for text only).
"""

import time
from functools import partial

from asgiref.sync import async_to_sync
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from jsonschema import Draft202012Validator

from elicitation.database_hop import in_db
from elicitation.models import Part
from elicitation.rendering import render_part_html
from playground.chat.fragments import append_to_turn
from playground.chat.push import push_html_soon
from playground.runs.models import Turn
from playground.server import server_loop

CHANNEL = "bench_answer_floor"
# Part id -> (when its waiter had read it back, the answer it read); the waiter's process's.
read_back: dict[int, tuple[float, dict]] = {}


def settle(part_id: int, user, fields: dict[str, str]) -> str | None:
    """Settle the person's pending question with `fields`; return the chip's HTML, or None if
    there is no such question pending. A bad answer raises jsonschema's ValidationError."""
    part = (
        Part.objects.select_related("conversation__agent", "conversation__owner__time_zone")
        .filter(pk=part_id, conversation__owner=user)
        .first()
    )
    if part is None:
        return None
    schema = part.payload["requestedSchema"]
    content = {name: fields[name] for name in schema.get("properties", {}) if name in fields}
    Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER).validate(
        content
    )
    envelope, now = {"action": "accept", "content": content}, timezone.now()
    with transaction.atomic():
        won = Part.objects.filter(pk=part.pk, state=Part.State.PENDING).update(
            state=Part.State.SUBMITTED, response=envelope, settled_at=now, settled_by=user
        )
        if not won:
            return None
        # Running: the run is still parking (ours flags it to replay instead).
        Turn.objects.filter(
            pk=part.turn_id, status__in=(Turn.Status.WAITING, Turn.Status.RUNNING)
        ).update(status=Turn.Status.DONE, updated_at=now)
        part.state, part.response, part.settled_at, part.settled_by = (
            Part.State.SUBMITTED,
            envelope,
            now,
            user,
        )
        html = render_part_html(part)
        chip = append_to_turn(part.turn_id, html)
        transaction.on_commit(partial(push_html_soon, part.conversation_id, chip))
        if settings.JOBS_RUN_IN == "workers":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, f"{part.turn_id} {part.pk}"])
        else:
            transaction.on_commit(partial(_wake, part.turn_id, part.pk))
    return html


def _wake(turn_id: int, part_id: int) -> None:
    """Embedded: start the waiter on the server's loop (none, as in tests: here and now)."""
    if not server_loop.submit(wait(turn_id, part_id)):
        async_to_sync(wait)(turn_id, part_id)


async def wait(turn_id: int, part_id: int) -> None:
    """The waiter: read the turn and its rows back, and note when it had the answer."""
    _, parts, _, _ = await in_db(_read_turn)(turn_id)
    [answered] = [part for part in parts if part.pk == part_id]
    # (Not the turn's status: a run still parking as the answer came sets it waiting again.)
    assert answered.state == Part.State.SUBMITTED and answered.response, part_id
    read_back[part_id] = (time.time(), answered.response)


def _read_turn(turn_id: int) -> tuple[Turn, list, list, list]:
    turn = Turn.objects.get(pk=turn_id)
    parts = list(Part.objects.filter(turn=turn))
    return turn, parts, list(turn.messages.all()), list(turn.steps.all())

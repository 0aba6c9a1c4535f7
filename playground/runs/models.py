"""Agents, conversations and what happens in them: turns, agent messages, recorded steps."""

import json
from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.db import models, transaction
from django.urls import reverse
from django.utils.formats import date_format
from django.utils.text import Truncator
from django.utils.timezone import localtime


class Agent(models.Model):
    """An agent a person can chat with: built in (code) or made in the onboarding wizard."""

    slug = models.SlugField(max_length=80, unique=True)
    name = models.CharField(max_length=80)
    description = models.TextField(blank=True)
    # The registered implementation that runs this agent's turns (see playground.runs.agents).
    kind = models.CharField(max_length=80)
    config = models.JSONField(default=dict, blank=True)
    builtin = models.BooleanField(default=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE
    )
    # An agent still being set up in the onboarding wizard.
    is_draft = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-builtin", "name"]

    def __str__(self) -> str:
        return self.name


class ConversationQuerySet(models.QuerySet):
    def owned_by(self, user) -> "ConversationQuerySet":
        """Return the person's own conversations: only the owner ever sees one."""
        return self.filter(owner=user)


class Conversation(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="conversations")
    title = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ConversationQuerySet.as_manager()

    class Meta:
        ordering = ["-updated_at"]
        indexes = [models.Index(fields=["owner", "-updated_at"])]

    def __str__(self) -> str:
        return self.title or f"Conversation {self.pk}"

    def get_absolute_url(self) -> str:
        return reverse("conversation", args=[self.pk])

    def add_turn(
        self,
        text: str,
        *,
        then: Callable[["Turn"], None],
        surface: str = "form",
        scheduled: bool = False,
    ) -> "Turn":
        """Store `text` as the next turn (a person's message, or a scheduled run's heading) and
        call `then` with it once the transaction commits: to queue its run, which this module
        cannot import.

        The conversation row is locked first, so two sends at once never take the same index.
        """
        with transaction.atomic():
            locked = Conversation.objects.select_for_update().get(pk=self.pk)
            last = locked.turns.aggregate(last=models.Max("index"))["last"]
            turn = Turn.objects.create(
                conversation=self,
                index=0 if last is None else last + 1,
                text=text,
                surface=surface,
                scheduled=scheduled,
            )
            if not locked.title:
                locked.title = title_for(text)
            locked.save(update_fields=["title", "updated_at"])
            self.title, self.updated_at = locked.title, locked.updated_at
            transaction.on_commit(lambda: then(turn))
        return turn


def title_for(first_message: str) -> str:
    """Return a conversation's title: its first message, or a pasted payload's own message."""
    try:
        payload = json.loads(first_message)
    except ValueError:
        payload = None
    if isinstance(payload, dict) and isinstance(payload.get("message"), str):
        first_message = payload["message"].strip() or first_message
    return first_message[:80]


class Turn(models.Model):
    """One message from the person and the agent run that answers it."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        WAITING = "waiting", "Waiting for the person"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"
        # The person pressed Stop: never run again (recovery leaves it alone).
        STOPPED = "stopped", "Stopped"

    class Surface(models.TextChoices):
        FORM = "form", "Forms"
        TEXT = "text", "Text only"

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="turns")
    index = models.PositiveIntegerField()
    text = models.TextField()
    # What the person's client can show: a text-only client cannot render forms.
    surface = models.CharField(max_length=10, choices=Surface, default=Surface.FORM)
    status = models.CharField(max_length=10, choices=Status, default=Status.QUEUED)
    # Started by a schedule (or Run now), not by a message: `text` is the run's heading.
    scheduled = models.BooleanField(default=False)
    # Set when a part settles while the run is still going, so the run replays once more.
    resume_requested = models.BooleanField(default=False)
    # Which run owns the turn now, and when it last showed it is alive.
    run_token = models.CharField(max_length=32, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)
    error_trace = models.TextField(blank=True)
    # A model's reply so far while it streams, so a reload or a reconnect shows it.
    partial_text = models.TextField(blank=True)
    # Where a replay may pick up instead of repeating calls whose records it would only read
    # again (`TurnContext.resume_points_with`), by the call index it picks up at.
    resume_points = models.JSONField(default=dict, blank=True)
    # Tokens the turn's model requests used (LLM agents).
    input_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["conversation", "index"]
        constraints = [
            models.UniqueConstraint(fields=["conversation", "index"], name="unique_turn_index")
        ]
        indexes = [models.Index(fields=["status"])]

    def __str__(self) -> str:
        # As a person would point at it: the conversation, which message (or run), and when.
        what = f"{'run' if self.scheduled else 'message'} {self.index + 1}"
        when = f" ({date_format(localtime(self.created_at), 'DATETIME_FORMAT')})"
        return f"{Truncator(self.conversation).chars(50)}, {what}{when if self.created_at else ''}"


class Message(models.Model):
    """Something the agent said (or a note about the run), at a call index within its turn."""

    class Role(models.TextChoices):
        AGENT = "agent", "Agent"
        ERROR = "error", "Error"
        NOTE = "note", "Note"

    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="messages")
    call_index = models.PositiveIntegerField()
    role = models.CharField(max_length=10, choices=Role, default=Role.AGENT)
    text = models.TextField()
    # Shown as the text it is, not as markdown (an MCP tool's text result: JSON, logs).
    plain = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["turn", "call_index"]
        constraints = [
            models.UniqueConstraint(fields=["turn", "call_index"], name="unique_message_call")
        ]

    def __str__(self) -> str:
        return self.text[:60]


class Step(models.Model):
    """A side-effecting step of a turn: what it was called with, how it went, and its JSON
    result, returned on replay. The chat shows each one (unless `shown` is off) as it runs."""

    class Status(models.TextChoices):
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        # Finished with a result that reports a failure (a tool's error): recorded all the same.
        ERROR = "error", "Ended with an error"
        # Raised: nothing recorded, so a replay runs it again.
        FAILED = "failed", "Failed"
        # The run let go mid-step (a question to answer, Stop): a replay runs it again.
        INTERRUPTED = "interrupted", "Interrupted"

    RECORDED = (Status.DONE, Status.ERROR)

    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="steps")
    call_index = models.PositiveIntegerField()
    name = models.CharField(max_length=200)
    result = models.JSONField(null=True)
    status = models.CharField(max_length=12, choices=Status, default=Status.DONE)
    # Bookkeeping a person need not see (the model's message history) is recorded, not shown.
    shown = models.BooleanField(default=True)
    # What the chat shows: a short summary of the arguments, and of the result or the error,
    # both with anything that looks like a secret removed.
    arguments = models.CharField(max_length=300, blank=True)
    outcome = models.TextField(blank=True)
    # The result as it came (a tool's JSON, secrets removed), shown beside the outcome.
    raw = models.TextField(blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["turn", "call_index"], name="unique_step_call")
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def dom_id(self) -> str:
        return f"step-{self.turn_id}-{self.call_index}"

    @property
    def duration(self) -> timedelta | None:
        if self.started_at is None or self.finished_at is None:
            return None
        return self.finished_at - self.started_at

    @property
    def shown_status(self) -> str:
        """Return the status as the chat shows it: a step left running by a run that is no
        longer going (the server stopped mid-step) did not finish."""
        active = (Turn.Status.QUEUED, Turn.Status.RUNNING)
        if self.status == self.Status.RUNNING and self.turn.status not in active:
            return "unfinished"
        return self.status


class Schedule(models.Model):
    """When an agent runs on its own for one person: an RFC 5545 rule in a time zone.

    `next_run_at` is the queue: a runner claims the schedules whose next slot is due like it
    claims turns (see playground/schedules/scheduler.py). Built-in agents have no owner, so each
    person
    who schedules one has a schedule of their own.
    """

    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="schedules")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    # DTSTART and RRULE lines (playground/schedules/recurrence.py); empty: only when someone starts
    # it.
    rule = models.TextField(blank=True)
    time_zone = models.CharField(max_length=64, default="UTC")
    description = models.CharField(max_length=200, blank=True)  # "every weekday at 09:00"
    # What the person set up for the runs (an agent's own settings, e.g. which platform).
    config = models.JSONField(default=dict, blank=True)
    paused = models.BooleanField(default=False)
    next_run_at = models.DateTimeField(null=True, blank=True)
    # The agent's Runs conversation for this person, where each run is a turn.
    conversation = models.ForeignKey(
        Conversation, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["agent", "owner"], name="one_schedule_per_person")
        ]
        indexes = [models.Index(fields=["next_run_at"])]

    def __str__(self) -> str:
        return f"{self.agent} for {self.owner}: {self.description or 'on demand'}"


class ScheduledRun(models.Model):
    """One slot of a schedule: the turn it started, or why it did not start one."""

    class Kind(models.TextChoices):
        SCHEDULED = "scheduled", "Scheduled"
        CATCH_UP = "catch_up", "Catch-up"
        MANUAL = "manual", "Run now"
        SKIPPED = "skipped", "Skipped"

    schedule = models.ForeignKey(Schedule, on_delete=models.CASCADE, related_name="runs")
    # The slot's time (a catch-up: the latest slot it stands for; Run now: the click).
    slot_at = models.DateTimeField()
    kind = models.CharField(max_length=10, choices=Kind)
    missed = models.PositiveIntegerField(default=0)  # slots a catch-up or a skip stands for
    turn = models.OneToOneField(
        Turn, null=True, blank=True, on_delete=models.SET_NULL, related_name="scheduled_run"
    )
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-slot_at", "-pk"]
        constraints = [
            # A slot is run (or skipped) once, whatever the number of runners.
            models.UniqueConstraint(
                fields=["schedule", "slot_at"],
                condition=~models.Q(kind="manual"),
                name="one_run_per_slot",
            )
        ]

    def __str__(self) -> str:
        slot = date_format(localtime(self.slot_at), "DATETIME_FORMAT")
        return f"{self.get_kind_display()} run of {self.schedule_id} at {slot}"


class WireMessage(models.Model):
    """A message exchanged with an agent's server (an MCP server's JSON-RPC, say), for the
    conversation's Wire panel. Stored with secrets removed; `size` is the original's."""

    class Direction(models.TextChoices):
        SENT = "sent", "Sent"
        RECEIVED = "received", "Received"
        EVENT = "event", "Connection"

    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="wire_messages"
    )
    source = models.CharField(max_length=200)  # "MCP: Everything"
    direction = models.CharField(max_length=10, choices=Direction)
    kind = models.CharField(max_length=20)  # request, response, notification, error, event
    method = models.CharField(max_length=200, blank=True)
    size = models.PositiveIntegerField(default=0)
    body = models.TextField(blank=True)
    at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["conversation", "id"])]

    def __str__(self) -> str:
        return f"{self.direction} {self.kind} {self.method}".strip()

"""The Part: one interaction an agent started (a question, a card), and its state machine."""

from django.conf import settings
from django.db import models


class PartQuerySet(models.QuerySet):
    def owned_by(self, user) -> "PartQuerySet":
        """Return the parts of the person's own conversations (anyone else's are not there)."""
        return self.filter(conversation__owner=user)


class Part(models.Model):
    class State(models.TextChoices):
        PENDING = "pending", "Pending"
        SUBMITTED = "submitted", "Submitted"
        DECLINED = "declined", "Declined"
        CANCELLED = "cancelled", "Cancelled"
        DEGRADED = "degraded", "Degraded"

    conversation = models.ForeignKey(
        "playground.Conversation", on_delete=models.CASCADE, related_name="parts"
    )
    turn = models.ForeignKey("playground.Turn", on_delete=models.CASCADE, related_name="parts")
    # Position among the run's calls within the turn; replays find the part by it.
    call_index = models.PositiveIntegerField()
    tool_call_id = models.CharField(max_length=100)
    tool_name = models.CharField(max_length=100, default="request_input")
    render_kind = models.CharField(max_length=40, blank=True)
    payload = models.JSONField(help_text="What the agent sent, exactly as sent.")
    normalized = models.JSONField(null=True, blank=True)
    intent = models.CharField(max_length=40, blank=True)
    allowed_actions = models.JSONField(default=list)
    value = models.JSONField(null=True, blank=True, help_text="Values the form starts with.")
    # For tool_permission approvals: what is being approved, to remember "for this conversation".
    approval_key = models.CharField(max_length=64, blank=True)
    state = models.CharField(max_length=10, choices=State, default=State.PENDING)
    degraded_reason = models.TextField(blank=True)
    response = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    pushed_at = models.DateTimeField(null=True, blank=True)
    settled_at = models.DateTimeField(null=True, blank=True)
    resumed_at = models.DateTimeField(null=True, blank=True)
    settled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="settled_parts",
    )

    objects = PartQuerySet.as_manager()

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["turn", "call_index"], name="unique_part_call"),
        ]
        indexes = [
            models.Index(fields=["state", "-created_at"]),
            models.Index(fields=["conversation", "turn"]),
            models.Index(fields=["-created_at"]),
            models.Index(fields=["conversation", "approval_key"]),
        ]

    def __str__(self) -> str:
        return f"{self.get_state_display()} {self.render_kind or self.tool_name} #{self.pk}"

    @property
    def message(self) -> str:
        """Return the question's text as the agent sent it."""
        if isinstance(self.payload, dict) and isinstance(self.payload.get("message"), str):
            return self.payload["message"]
        return ""

    @property
    def is_pending(self) -> bool:
        return self.state == self.State.PENDING


class PersonZone(models.Model):
    """The IANA time zone a person reads and answers dates and times in."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        primary_key=True,
        on_delete=models.CASCADE,
        related_name="time_zone",
    )
    name = models.CharField(max_length=64, help_text="An IANA name, like Europe/Berlin.")

    def __str__(self) -> str:
        return self.name

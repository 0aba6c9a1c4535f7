"""Who is to be told about which question, what was sent, each person's settings, open tabs."""

from django.conf import settings
from django.db import models


class Notice(models.Model):
    """One question one person is to be told about: the queue row, claimed like a turn.

    Pending while the question waits; `due_at` is when it is next looked at (the grace period's
    end, a retry, a reminder, the end of quiet hours, or a lease's end while it is being sent).
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        DONE = "done", "Done"

    part = models.ForeignKey("elicitation.Part", on_delete=models.CASCADE, related_name="notices")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notices"
    )
    status = models.CharField(max_length=10, choices=Status, default=Status.PENDING)
    due_at = models.DateTimeField()
    lease_token = models.CharField(max_length=32, blank=True)
    # Failed sends in a row (SMTP down); the next retry waits NOTIFY_BACKOFF[attempts - 1].
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.CharField(max_length=300, blank=True)
    told_at = models.DateTimeField(null=True, blank=True)
    reminders = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["part", "user"], name="unique_notice_per_person")
        ]
        indexes = [models.Index(fields=["status", "due_at"])]

    def __str__(self) -> str:
        return f"Notice of part {self.part_id} for user {self.user_id}"


class Sent(models.Model):
    """A notification that went out about a question (the admin's timeline shows these)."""

    class Channel(models.TextChoices):
        EMAIL = "email", "Email"
        BROWSER = "browser", "Browser notification"

    notice = models.ForeignKey(Notice, on_delete=models.CASCADE, related_name="sent")
    channel = models.CharField(max_length=10, choices=Channel)
    reminder = models.BooleanField(default=False)
    sent_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["sent_at", "id"]

    def __str__(self) -> str:
        return f"{self.get_channel_display()} about part {self.notice.part_id}"


class NotifySettings(models.Model):
    """A person's notification settings; a person without a row gets the defaults."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        primary_key=True,
        on_delete=models.CASCADE,
        related_name="notify_settings",
    )
    email = models.BooleanField(default=True)
    reminders = models.BooleanField(default=True)
    # In the person's own zone; both set means quiet from `quiet_from` up to `quiet_until`
    # (across midnight when `quiet_until` is earlier).
    quiet_from = models.TimeField(null=True, blank=True)
    quiet_until = models.TimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"Notification settings of user {self.user_id}"


class Tab(models.Model):
    """An open conversation tab (a websocket), so nobody is emailed about what they see."""

    channel_name = models.CharField(max_length=200, unique=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    conversation_id = models.BigIntegerField()
    # The web process holding the socket refreshes this; a row gone quiet lost its process.
    seen_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["user", "conversation_id"])]

    def __str__(self) -> str:
        return f"Tab of user {self.user_id} on conversation {self.conversation_id}"

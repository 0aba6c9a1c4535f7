"""API tokens (stored hashed), idempotency keys, and webhook deliveries with their attempts."""

import uuid

from django.conf import settings
from django.db import models
from django.utils.formats import date_format
from django.utils.timezone import localtime


class ApiTokenQuerySet(models.QuerySet):
    def owned_by(self, user) -> "ApiTokenQuerySet":
        """Return the person's own tokens."""
        return self.filter(owner=user)

    def active(self) -> "ApiTokenQuerySet":
        return self.filter(revoked_at__isnull=True)


class ApiToken(models.Model):
    """A bearer token an external agent uses to act as its owner. Only its hash is kept."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=80)
    # The first characters, so a person can tell tokens apart without the secret part.
    prefix = models.CharField(max_length=16)
    key_hash = models.CharField(max_length=64, unique=True)
    webhook_url = models.URLField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "API token"

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


class ExternalConversation(models.Model):
    """A conversation opened through the API: its agent runs outside, behind this token."""

    conversation = models.OneToOneField(
        "playground.Conversation", on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    token = models.ForeignKey(ApiToken, on_delete=models.CASCADE, related_name="conversations")

    def __str__(self) -> str:
        return f"Conversation {self.conversation_id} via {self.token}"


class IdempotencyKey(models.Model):
    """A request created under an `Idempotency-Key`: a retry gets the same request back."""

    token = models.ForeignKey(ApiToken, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=200)
    body_hash = models.CharField(max_length=64)
    part = models.ForeignKey("elicitation.Part", on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["token", "key"], name="unique_idempotency_key")
        ]
        indexes = [models.Index(fields=["created_at"])]

    def __str__(self) -> str:
        return self.key


class WebhookDelivery(models.Model):
    """One settled request to POST to a token's webhook URL, tried until it is accepted.

    The table is the queue (`playground.api.webhooks`): a pending delivery is due at
    `next_attempt_at`.
    A process that claims it writes its `lease_token` and moves `next_attempt_at` to the end
    of the lease, so while an attempt is in flight that is when it goes out again if the
    sender died. `webhook_id` is the `Webhook-Id` header of every attempt.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        DELIVERED = "delivered", "Delivered"
        FAILED = "failed", "Failed"

    token = models.ForeignKey(ApiToken, on_delete=models.CASCADE, related_name="deliveries")
    part = models.ForeignKey("elicitation.Part", on_delete=models.CASCADE, related_name="+")
    url = models.URLField(max_length=500)
    webhook_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    status = models.CharField(max_length=10, choices=Status, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField()
    lease_token = models.CharField(max_length=32, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "next_attempt_at"])]
        verbose_name_plural = "webhook deliveries"

    def __str__(self) -> str:
        return f"Request {self.part_id} to {self.url}"


class DeliveryAttempt(models.Model):
    """What happened when a delivery was tried: the status code or the error."""

    delivery = models.ForeignKey(WebhookDelivery, on_delete=models.CASCADE, related_name="tries")
    status_code = models.PositiveIntegerField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]

    def __str__(self) -> str:
        when = date_format(localtime(self.created_at), "j M Y, H:i:s T")  # with seconds
        return f"{self.status_code or self.error} at {when}"

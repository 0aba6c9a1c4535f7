"""MCP tasks: a task-augmented tool call's question, kept so a client polls it across restarts."""

import uuid

from django.db import models


class McpTaskQuerySet(models.QuerySet):
    def owned_by(self, user) -> "McpTaskQuerySet":
        """Return the tasks of the person's tokens (nobody else's)."""
        return self.filter(token__owner=user)


class McpTask(models.Model):
    """A question asked by a task-augmented `tools/call`. Its status is read from the part:
    pending is `working`, settled is `completed`; `cancelled_at` marks a `tasks/cancel`."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    token = models.ForeignKey("api.ApiToken", on_delete=models.CASCADE, related_name="+")
    part = models.OneToOneField("elicitation.Part", on_delete=models.CASCADE, related_name="+")
    ttl_ms = models.PositiveBigIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    cancelled_at = models.DateTimeField(null=True, blank=True)

    objects = McpTaskQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "MCP task"

    def __str__(self) -> str:
        return f"Task {self.id} (request {self.part_id})"

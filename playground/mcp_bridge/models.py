"""The configured servers as the admin lists them: their agents, read-only (a proxy, no table)."""

from django.db import models

from playground.mcp_bridge.catalog import KIND
from playground.runs.models import Agent


class McpServerManager(models.Manager):
    def get_queryset(self) -> models.QuerySet:
        return super().get_queryset().filter(kind=KIND)


class McpServer(Agent):
    objects = McpServerManager()

    class Meta:
        proxy = True
        verbose_name = "MCP server"

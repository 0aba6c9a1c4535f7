"""The declared AG-UI agents as the admin lists them: their agents, read-only (a proxy)."""

from django.db import models

from playground.agui.catalog import KIND
from playground.runs.models import Agent


class AguiAgentManager(models.Manager):
    def get_queryset(self) -> models.QuerySet:
        return super().get_queryset().filter(kind=KIND)


class AguiAgent(Agent):
    objects = AguiAgentManager()

    class Meta:
        proxy = True
        verbose_name = "AG-UI agent"

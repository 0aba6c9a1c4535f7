"""The declared AG-UI agents in the admin, read-only: they are declared in the agents file.

Each run's input and every event it streamed (the wire) are the run's recorded step, on the
admin's turn page ("AG-UI run <turn>-<index>").
"""

from django.contrib import admin

from playground.agui.catalog import AGENTS
from playground.agui.models import AguiAgent
from playground.runs.declared import DeclaredAdmin


@admin.register(AguiAgent)
class AguiAgentAdmin(DeclaredAdmin):
    declared = AGENTS
    list_display = ["name", "slug", "url", "groups", "status", "listed"]

    @admin.display(description="URL")
    def url(self, agent) -> str:
        declared = self.entry(agent)
        return declared.url if declared else "not in the agents file"

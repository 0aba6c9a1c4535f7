"""The declared AG-UI agents in the admin, read-only: they are declared in the agents file.

Each run's input and every event it streamed (the wire) are the run's recorded step, on the
admin's turn page ("AG-UI run <turn>-<index>").
"""

from django.contrib import admin

from agui import agents_file
from agui.models import AguiAgent


@admin.register(AguiAgent)
class AguiAgentAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "url", "groups", "status", "listed"]
    search_fields = ["name", "slug"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def _declared(self, agent) -> agents_file.AguiAgentConfig | None:
        try:
            return agents_file.load().get(agent.config.get("agui_agent", ""))
        except agents_file.AgentsFileError:
            return None

    @admin.display(description="URL")
    def url(self, agent) -> str:
        declared = self._declared(agent)
        return declared.url if declared else "not in the agents file"

    @admin.display(description="Groups")
    def groups(self, agent) -> str:
        declared = self._declared(agent)
        return ", ".join(declared.groups) or "every logged-in user" if declared else ""

    @admin.display(description="Last check")
    def status(self, agent) -> str:
        return agent.config.get("status") or "not checked yet (manage.py agui_check)"

    @admin.display(description="On the home page", boolean=True)
    def listed(self, agent) -> bool:
        return agent.builtin

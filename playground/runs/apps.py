from django.apps import AppConfig


class PlaygroundConfig(AppConfig):
    """Agents, conversations, turns and their runs (the label of the tables: `playground`)."""

    name = "playground.runs"
    label = "playground"
    verbose_name = "Playground"

    def ready(self) -> None:
        # Imported here, once the app registry is ready (Django's documented place for it).
        from django.db.models.signals import post_save

        from elicitation.settle import part_settling
        from playground.runs import background_jobs, builtin_agents  # noqa: F401  (built-in agents)
        from playground.runs.models import Agent
        from playground.runs.tasks import on_part_settling
        from playground.schedules.scheduler import sync_agent

        part_settling.connect(on_part_settling, dispatch_uid="queue-turn-on-settle")
        # An agent whose row carries a schedule (the wizard's) keeps its owner's in step.
        post_save.connect(sync_agent, sender=Agent, dispatch_uid="sync-agent-schedule")
        background_jobs.register()

from django.apps import AppConfig


class AguiConfig(AppConfig):
    name = "playground.agui"
    label = "agui"
    verbose_name = "AG-UI agents"

    def ready(self) -> None:
        # Imported here, once the app registry is ready (Django's documented place for it).
        from django.db.models.signals import post_migrate

        from playground.agui import agent  # noqa: F401  (registers AG-UI agents as an agent kind)
        from playground.agui.catalog import sync_agents_after_migrate

        post_migrate.connect(sync_agents_after_migrate, sender=self)

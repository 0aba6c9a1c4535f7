from django.apps import AppConfig


class PlaygroundConfig(AppConfig):
    name = "playground"
    verbose_name = "Playground"

    def ready(self) -> None:
        # Imported here, once the app registry is ready (Django's documented place for it).
        from django.contrib.auth.signals import user_logged_in

        from elicitation.settle import part_settled, part_settling
        from playground import builtin_agents  # noqa: F401  (registers the built-in agents)
        from playground.preferences import remember_browser_zone
        from playground.push import on_part_settled
        from playground.tasks import on_part_settling

        part_settling.connect(on_part_settling, dispatch_uid="queue-turn-on-settle")
        part_settled.connect(on_part_settled, dispatch_uid="push-settled-part")
        user_logged_in.connect(remember_browser_zone, dispatch_uid="remember-browser-zone")

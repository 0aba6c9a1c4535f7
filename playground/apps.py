from django.apps import AppConfig


class PlaygroundConfig(AppConfig):
    name = "playground"
    verbose_name = "Playground"

    def ready(self) -> None:
        from elicitation.settle import part_settled
        from playground import builtin_agents  # noqa: F401  (registers the built-in agents)
        from playground.runtime import on_part_settled

        part_settled.connect(on_part_settled, dispatch_uid="resume-after-settle")

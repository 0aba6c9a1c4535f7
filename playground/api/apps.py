from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "playground.api"
    label = "api"
    verbose_name = "HTTP API"

    def ready(self) -> None:
        # Imported here, once the app registry is ready (Django's documented place for it).
        from elicitation.settle import part_settled, part_settling
        from playground import jobs
        from playground.api import external, webhooks
        from playground.api.waiting import wake_waiters

        part_settling.connect(webhooks.record_delivery, dispatch_uid="api-record-webhook")
        part_settled.connect(wake_waiters, dispatch_uid="api-wake-waiters")
        part_settled.connect(external.show_status, dispatch_uid="api-show-status")
        part_settled.connect(webhooks.deliver_soon, dispatch_uid="api-deliver-webhook")
        jobs.register("webhooks", webhooks.job)

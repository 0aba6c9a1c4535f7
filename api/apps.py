from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "api"
    verbose_name = "HTTP API"

    def ready(self) -> None:
        # Imported here, once the app registry is ready (Django's documented place for it).
        from api import (
            external,  # (registers the external agent kind)
            webhooks,
        )
        from api.waiting import wake_waiters
        from elicitation.settle import part_settled, part_settling
        from playground import jobs

        part_settling.connect(webhooks.record_delivery, dispatch_uid="api-record-webhook")
        part_settled.connect(wake_waiters, dispatch_uid="api-wake-waiters")
        part_settled.connect(external.show_status, dispatch_uid="api-show-status")
        part_settled.connect(webhooks.deliver_soon, dispatch_uid="api-deliver-webhook")
        jobs.register("webhooks", webhooks.job)

from django.apps import AppConfig


class NotifyConfig(AppConfig):
    name = "playground.notify"
    label = "notify"
    verbose_name = "Notifications"

    def ready(self) -> None:
        # Imported here, once the app registry is ready (Django's documented place for it).
        from django.db.models.signals import post_save

        from elicitation.models import Part
        from playground.notify.queue import notice_new_part

        # Every source of questions saves a Part: this one hook sees them all.
        post_save.connect(notice_new_part, sender=Part, dispatch_uid="notify-new-part")

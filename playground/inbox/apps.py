from django.apps import AppConfig


class InboxConfig(AppConfig):
    name = "playground.inbox"
    label = "inbox"
    verbose_name = "Inbox and routing"

from django.apps import AppConfig


class ChatConfig(AppConfig):
    name = "playground.chat"
    label = "chat"
    verbose_name = "Chat"

from django.apps import AppConfig


class ServerConfig(AppConfig):
    name = "playground.server"
    label = "server"
    verbose_name = "Server"

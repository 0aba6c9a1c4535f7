from django.apps import AppConfig


class ServerConfig(AppConfig):
    """Serving: the ASGI handler, the channel layers, health, limits and `manage.py serve`."""

    name = "playground.server"
    label = "server"
    verbose_name = "Server"

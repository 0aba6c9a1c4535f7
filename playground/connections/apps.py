from django.apps import AppConfig


class ConnectionsConfig(AppConfig):
    name = "playground.connections"
    label = "connections"
    default_auto_field = "django.db.models.BigAutoField"

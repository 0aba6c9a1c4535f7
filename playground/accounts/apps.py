from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "playground.accounts"
    label = "accounts"
    verbose_name = "Sign-on"
    default_auto_field = "django.db.models.BigAutoField"

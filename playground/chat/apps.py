from django.apps import AppConfig


class ChatConfig(AppConfig):
    """The chat: pages, sockets, fragments and the push of every change to open tabs."""

    name = "playground.chat"
    label = "chat"
    verbose_name = "Chat"

    def ready(self) -> None:
        # Imported here, once the app registry is ready (Django's documented place for it).
        from django.contrib.auth.signals import user_logged_in

        from elicitation.settle import part_settled
        from playground.chat.preferences import remember_browser_zone
        from playground.chat.push import on_part_settled

        part_settled.connect(on_part_settled, dispatch_uid="push-settled-part")
        user_logged_in.connect(remember_browser_zone, dispatch_uid="remember-browser-zone")

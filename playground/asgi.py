"""ASGI entry point: HTTP through Django, websockets through Channels (served by daphne), and
/mcp through the MCP SDK (`playground.mcp_server.mount`)."""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")

from playground.server.http_handler import get_asgi_application

django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402  (needs Django set up)
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.urls import path  # noqa: E402

from playground.chat.consumers import ConversationConsumer  # noqa: E402
from playground.inbox.consumers import InboxConsumer  # noqa: E402
from playground.mcp_server.mount import serving_mcp  # noqa: E402
from playground.server import server_loop, startup  # noqa: E402
from playground.server.closed_sockets import dropping_sends_on_closed_sockets  # noqa: E402
from playground.server.upload_limits import limit_answer_uploads  # noqa: E402

# `manage.py serve` starts the embedded runner as soon as daphne's loop exists; under another
# server it starts with the first connection.
application = server_loop.remember_loop(
    ProtocolTypeRouter(
        {
            "http": serving_mcp(limit_answer_uploads(django_asgi_app)),
            # Every consumer: a tab closed mid-send is a normal end, not a traceback.
            "websocket": dropping_sends_on_closed_sockets(
                AllowedHostsOriginValidator(
                    AuthMiddlewareStack(
                        URLRouter(
                            [
                                path("ws/c/<int:conversation_id>/", ConversationConsumer.as_asgi()),
                                path("ws/inbox/", InboxConsumer.as_asgi()),
                            ]
                        )
                    )
                )
            ),
        }
    ),
    startup=startup.start,
)

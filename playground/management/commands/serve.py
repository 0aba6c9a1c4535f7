"""Serve the playground with daphne, starting the embedded turn runner before any visitor.

Daphne has no ASGI lifespan events; its documented `Server(ready_callable=...)` runs once its
event loop is set up, so start-up recovery does not wait for a first request.
"""

import asyncio
import sys

from daphne.access import AccessLogGenerator
from daphne.endpoints import build_endpoint_description_strings
from daphne.server import Server
from django.conf import settings
from django.core.management.base import BaseCommand

from playground import embedded, server_loop
from playground.asgi import application


class Command(BaseCommand):
    help = "Serve HTTP and websockets with daphne; in the embedded default, run agent turns too."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)

    def handle(self, *args, host: str, port: int, **options) -> None:
        endpoints = build_endpoint_description_strings(host=host, port=port)
        Server(
            application=application,
            endpoints=endpoints,
            ready_callable=_adopt_loop,
            ping_interval=settings.WEBSOCKET_PING_SECONDS,
            action_logger=AccessLogGenerator(sys.stdout) if options["verbosity"] else None,
            verbosity=options["verbosity"],
        ).run()


def _adopt_loop() -> None:
    # Called by daphne right before its loop runs, with that loop set as the current one.
    loop = asyncio.get_event_loop()
    loop.call_soon(server_loop.adopt, loop, embedded.start)

"""Serve the playground with daphne, starting the embedded turn runner before any visitor.

Daphne has no ASGI lifespan events; its documented `Server(ready_callable=...)` runs once its
event loop is set up, so start-up recovery does not wait for a first request.

`--reload` (`make dev`) serves under Django's autoreloader, as `runserver` does: a change to any
Python file the server imported (your AGENT_MODULES too) restarts it. Nothing is lost: waiting
questions are rows, and a turn cut off mid-run is picked up by the start-up recovery.
"""

import asyncio
import sys

from daphne.access import AccessLogGenerator
from daphne.endpoints import build_endpoint_description_strings
from daphne.server import Server  # installs Twisted's asyncio reactor: before twisted's
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.utils import autoreload
from django.utils.module_loading import import_string
from twisted.internet import reactor

from playground.accounts.proxy import SOCKET_PEER
from playground.server import server_loop, startup

# How often the server passes over every open connection (reaping closed ones, timeouts,
# keepalive pings), at most: daphne's own passes run every 1 and 2 seconds.
SWEEP_SECONDS = 10


class Command(BaseCommand):
    help = "Serve HTTP and websockets with daphne; in the embedded default, run agent turns too."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument(
            "--proxy-headers",
            action="store_true",
            help="trust X-Forwarded-For, -Port and -Proto (behind a router), as daphne's flag does",
        )
        parser.add_argument(
            "--ping-seconds",
            type=int,
            default=settings.WEBSOCKET_PING_SECONDS,
            help="ping a quiet websocket this often (default: WEBSOCKET_PING_SECONDS)",
        )
        parser.add_argument(
            "--reload",
            action="store_true",
            help="restart when a Python file the server imported changes (make dev)",
        )

    def handle(self, *args, reload, **options) -> None:
        if reload:
            autoreload.run_with_reloader(self.serve_reloaded, **options)
        else:
            self.serve(**options)

    def serve_reloaded(self, **options) -> None:
        # Each start: the agents as the code now declares them (a new one, a new name) get
        # their rows, as `seed` gives them; the reloader runs this off the main thread.
        call_command("seed", verbosity=0)
        self.serve(signal_handlers=False, **options)

    def serve(
        self, *, host, port, proxy_headers, ping_seconds, signal_handlers=True, **options
    ) -> None:
        endpoints = build_endpoint_description_strings(host=host, port=port)
        forwarded = ("X-Forwarded-For", "X-Forwarded-Port", "X-Forwarded-Proto")
        address, port_header, proto = forwarded if proxy_headers else (None, None, None)
        SweepingServer(
            sweep_seconds=max(1, min(SWEEP_SECONDS, ping_seconds)),
            application=import_string(settings.ASGI_APPLICATION),
            endpoints=endpoints,
            ready_callable=_adopt_loop,
            ping_interval=ping_seconds,
            proxy_forwarded_address_header=address,
            proxy_forwarded_port_header=port_header,
            proxy_forwarded_proto_header=proto,
            action_logger=AccessLogGenerator(sys.stdout) if options["verbosity"] else None,
            verbosity=options["verbosity"],
            # The reloader runs the server off the main thread, where no signal handler can go.
            signal_handlers=signal_handlers,
        ).run()


class SweepingServer(Server):
    """daphne's server, passing over its connections every `sweep_seconds`.

    With thousands of idle tabs open, daphne's passes every second were most of what the
    server did while idle (bench/README.md, idle_sockets). Each pass schedules the next call
    itself; in between, these calls only schedule the next one. A quiet socket is pinged
    between the ping interval and that plus `sweep_seconds` after its last ping.
    """

    def __init__(self, *, sweep_seconds: float, **options):
        super().__init__(**options)
        self.sweep_seconds = sweep_seconds
        self.next_pass: dict[str, float] = {}

    def application_checker(self) -> None:
        if self._due("application_checker"):
            super().application_checker()
        else:
            reactor.callLater(1, self.application_checker)

    def timeout_checker(self) -> None:
        if self._due("timeout_checker"):
            super().timeout_checker()
        else:
            reactor.callLater(1, self.timeout_checker)

    def create_application(self, protocol, scope):
        # The address that connected, kept beside `client` (which --proxy-headers takes from
        # X-Forwarded-For): a trusted proxy's sign-on header is believed by this one alone.
        peer = protocol.transport.getPeer()
        scope[SOCKET_PEER] = str(getattr(peer, "host", ""))
        return super().create_application(protocol, scope)

    def _due(self, name: str) -> bool:
        now = reactor.seconds()
        if now < self.next_pass.get(name, 0):
            return False
        self.next_pass[name] = now + self.sweep_seconds
        return True


def _adopt_loop() -> None:
    # Called by daphne right before its loop runs, with that loop set as the current one.
    loop = asyncio.get_event_loop()
    loop.call_soon(server_loop.adopt, loop, startup.start)

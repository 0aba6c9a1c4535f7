"""The playground's settings plus the bench-only pieces: the answer floor, an echo socket,
a census of the server's live objects and the bench agent."""

from playground.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"
ASGI_APPLICATION = "bench.asgi.application"
AGENT_MODULES = [*AGENT_MODULES, "bench.agents"]  # noqa: F405

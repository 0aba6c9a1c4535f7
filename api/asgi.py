"""Serve the API without Django's per-request thread, so a long-poll holds no thread.

Django's ASGI handler gives each request a thread of its own for its sync parts (middleware,
signals), kept until the response is sent: 200 waiting calls would hold 200 threads. API
requests skip that: their few sync middleware steps share asgiref's one thread for sync work
outside a request, and the endpoints do their database work on pooled threads (`in_db`).
"""

from django.core.handlers.asgi import ASGIHandler

API_PREFIX = "/api/"


class ThreadlessHandler(ASGIHandler):
    """Django's ASGI handler, minus the thread-per-request context."""

    async def __call__(self, scope, receive, send) -> None:
        await self.handle(scope, receive, send)


def with_api(django_app):
    """Route HTTP requests under /api/ to the threadless handler, the rest to `django_app`."""
    api_app = ThreadlessHandler()

    async def app(scope, receive, send):
        if scope["path"].startswith(API_PREFIX):
            return await api_app(scope, receive, send)
        return await django_app(scope, receive, send)

    return app

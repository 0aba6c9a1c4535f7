"""/mcp, in front of Django's ASGI app: the SDK's Streamable HTTP session manager, stateless.

Stateless, so any web process answers any request (scale-out needs no sticky routing): no
session lives in a process, and a task lives in the database. Django's middleware does not run
here, so this mount does what it does elsewhere: the bearer token (the HTTP API's tokens, a
revoked one refused at its next request), the API's rate limit per token, and, through the
SDK's transport security, the allowed hosts and the API's body size limit.

The manager runs from start-up (`keep_manager_running`, a start-up task of every web process);
a request that arrives before it has started waits for it.
"""

import asyncio

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from mcp.server.transport_security import TransportSecuritySettings

from elicitation.database_hop import in_db
from playground.api.endpoints import TokenRateThrottle
from playground.api.models import ApiToken
from playground.api.problems import problem
from playground.api.tokens import find_token
from playground.mcp_server.server import mcp
from playground.mcp_server.tools import TOKEN

PATH = "/mcp"

_started = asyncio.Event()


def transport_security() -> TransportSecuritySettings:
    """Return the SDK's Host and Origin checks for ALLOWED_HOSTS (any port; "*" for any host).

    A leading-dot entry (".example.com") allows that domain itself here, not its subdomains:
    the SDK matches host names exactly."""
    hosts = [host.removeprefix(".") for host in settings.ALLOWED_HOSTS]
    if "*" in hosts:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    origins = [f"{scheme}://{host}" for host in hosts for scheme in ("http", "https")]
    return TransportSecuritySettings(
        allowed_hosts=[*hosts, *(f"{host}:*" for host in hosts)],
        allowed_origins=[*origins, *(f"{origin}:*" for origin in origins)],
    )


mcp.streamable_http_app(
    stateless_http=True,
    transport_security=transport_security(),
    max_request_body_size=settings.DATA_UPLOAD_MAX_MEMORY_SIZE,  # the HTTP API's limit
)
manager = mcp.session_manager


async def keep_manager_running() -> None:
    """Run the session manager for as long as the process serves."""
    async with manager.run():
        _started.set()
        await asyncio.Event().wait()


def serving_mcp(app):
    """Wrap the HTTP application: /mcp goes to the MCP server, everything else to `app`."""

    async def application(scope, receive, send) -> None:
        path = scope["path"].removeprefix(scope.get("root_path", ""))
        if scope["type"] != "http" or path.rstrip("/") != PATH:
            return await app(scope, receive, send)
        headers = dict(scope.get("headers") or [])
        authorization = headers.get(b"authorization", b"").decode("latin-1")
        token, refusal = await in_db(admit)(authorization)
        if refusal is not None:
            return await _send(send, refusal)
        await _started.wait()
        await manager.handle_request({**scope, TOKEN: token}, receive, send)

    return application


def admit(authorization: str) -> tuple[ApiToken | None, HttpResponse | None]:
    """Return the request's token, or the refusal the HTTP API would give (401, 429)."""
    scheme, _, key = authorization.partition(" ")
    token = find_token(key.strip()) if scheme.lower() == "bearer" and key.strip() else None
    if token is None:
        detail = "Send a valid, unrevoked API token: Authorization: Bearer <token>."
        refusal = problem(401, "unauthenticated", "Not authenticated.", detail)
        refusal["WWW-Authenticate"] = 'Bearer realm="mcp"'
        return None, refusal
    throttle = TokenRateThrottle()
    request = HttpRequest()
    request.auth = token
    if not throttle.allow_request(request):
        detail = "This token sent too many requests. Wait for the Retry-After seconds."
        refusal = problem(429, "rate-limited", "Too many requests.", detail)
        refusal["Retry-After"] = str(int(throttle.wait() or 1))
        return None, refusal
    return token, None


async def _send(send, response: HttpResponse) -> None:
    headers = [(name.lower().encode(), value.encode()) for name, value in response.items()]
    await send({"type": "http.response.start", "status": response.status_code, "headers": headers})
    await send({"type": "http.response.body", "body": response.content})

"""Sign-on by a trusted proxy's header (oauth2-proxy, a platform's login in front of us).

The header (PROXY_USER_HEADER, with optional email and groups headers) is believed only from a
request whose socket peer is one of PROXY_TRUSTED_ADDRESSES: the address that connected to
this server, which `manage.py serve` puts in the scope as SOCKET_PEER. Not the client address
`--proxy-headers` reads from X-Forwarded-For: anyone can send that header. From anywhere else
the header is ignored, and logged once per address. The proxy must set the header itself,
overwriting any a client sent.
"""

import ipaddress
import logging

from asgiref.sync import iscoroutinefunction, sync_to_async
from django.conf import settings
from django.contrib.auth import authenticate, login
from django.core.exceptions import ImproperlyConfigured, MiddlewareNotUsed
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.decorators import sync_and_async_middleware

from playground.accounts.people import Person, group_names, refusal

log = logging.getLogger(__name__)

SOCKET_PEER = "playground.socket_peer"  # the scope's key: the address that connected to us
ISSUER = "trusted-proxy"  # the "issuer" of the people a proxy signs in
SESSION_KEY = "signed_on"  # how this session signed on: "oidc", or "proxy:<subject>"

MAX_WARNED = 10_000
_warned: set[str] = set()  # the addresses whose header was ignored, each logged once


def socket_peer(request: HttpRequest) -> str:
    """Return the address of whatever connected to this server for `request`."""
    scope = getattr(request, "scope", None)
    if scope is None:  # WSGI (Django's test client): REMOTE_ADDR is the socket peer
        return request.META.get("REMOTE_ADDR", "")
    if SOCKET_PEER in scope:
        return scope[SOCKET_PEER]
    client = scope.get("client")  # another ASGI server: its client address
    return client[0] if client else ""


def _trusted(address: str, networks: list) -> bool:
    try:
        peer = ipaddress.ip_address(address)
    except ValueError:
        return False
    peer = getattr(peer, "ipv4_mapped", None) or peer  # ::ffff:10.0.0.5 is 10.0.0.5
    return any(peer in network for network in networks)


def _header(request: HttpRequest, name: str) -> str:
    return request.headers.get(name, "").strip() if name else ""


def _person(request: HttpRequest, networks: list) -> Person | None:
    """Return who the proxy says this is, if a trusted proxy says so."""
    subject = _header(request, settings.PROXY_USER_HEADER)
    if not subject or "authorization" in request.headers:  # API calls carry their own token
        return None
    peer = socket_peer(request)
    if not _trusted(peer, networks):
        if peer not in _warned:
            if len(_warned) >= MAX_WARNED:  # bounded: many addresses are logged again later
                _warned.clear()
            _warned.add(peer)
            log.warning(
                "Ignored the %s header from %s, which is not in PROXY_TRUSTED_ADDRESSES",
                settings.PROXY_USER_HEADER,
                peer or "an unknown address",
            )
        return None
    return Person(
        issuer=ISSUER,
        subject=subject[:255],
        username=subject,
        email=_header(request, settings.PROXY_EMAIL_HEADER),
        groups=group_names(_header(request, settings.PROXY_GROUPS_HEADER)),
    )


def _sign_in(request: HttpRequest, person: Person) -> HttpResponse | None:
    """Sign `person` in unless this session already is theirs; a refusal is a page."""
    if request.session.get(SESSION_KEY) == f"proxy:{person.subject}" and (
        request.user.is_authenticated  # (not if deactivated meanwhile: then say so)
    ):
        return None
    refused = refusal(person, "your sign-in service")
    if refused is None:
        user = authenticate(request, person=person)
        if user is not None:
            login(request, user)
            request.session[SESSION_KEY] = f"proxy:{person.subject}"
            return None
    return TemplateResponse(
        request, "accounts/refused.html", {"refusal": refused}, status=403
    ).render()


@sync_and_async_middleware
def trusted_proxy_sign_in(get_response):
    """Sign in whoever a trusted proxy's header names (unused without PROXY_USER_HEADER)."""
    if not settings.PROXY_USER_HEADER:
        raise MiddlewareNotUsed
    try:
        networks = [ipaddress.ip_network(n, strict=False) for n in settings.PROXY_TRUSTED_ADDRESSES]
    except ValueError as error:
        raise ImproperlyConfigured(f"PROXY_TRUSTED_ADDRESSES: {error}") from None
    if iscoroutinefunction(get_response):

        async def middleware(request: HttpRequest) -> HttpResponse:
            person = _person(request, networks)
            refused = person and await sync_to_async(_sign_in)(request, person)
            return refused or await get_response(request)

    else:

        def middleware(request: HttpRequest) -> HttpResponse:
            person = _person(request, networks)
            return (person and _sign_in(request, person)) or get_response(request)

    return middleware

"""OAuth 2 with a provider: discovery, dynamic registration, and the token requests.

The protocol only (no rows; `playground.connections.signin` keeps them): where the provider is (its
metadata, RFC 8414, or the protected resource that names it, RFC 9728, as the MCP
authorization spec has it), registering us as a client where offered (RFC 7591), the
authorization URL with PKCE (S256) and `state`, exchanging a code, refreshing and revoking
(RFC 7009). The metadata and client-registration models are the MCP SDK's (`mcp.shared.auth`);
the token requests are authlib's. Every URL passes the address check before it is called
(`playground.connections.addresses`: public addresses only, unless CONNECTIONS_ALLOW_PRIVATE), and
no
redirect is followed: an endpoint that sends us to another place is refused.
"""

import time
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlencode, urlsplit

import httpx
from authlib.common.security import generate_token
from authlib.integrations.base_client import OAuthError as AuthlibError
from authlib.integrations.httpx_client import AsyncOAuth2Client, OAuth2Client
from django.conf import settings
from pydantic import ValidationError

from playground.connections import addresses
from playground.connections.services import Service

# The MCP SDK's auth modules are imported by the functions that use them (at a sign-in): the
# SDK takes seconds to import, which every `manage.py` command paid when the URLs loaded.
if TYPE_CHECKING:
    from mcp.shared.auth import OAuthClientInformationFull, OAuthMetadata, ProtectedResourceMetadata

HTTP_SECONDS = 15.0
CLIENT_NAME = "Elicitation playground"


class OAuthFlowError(Exception):
    """The provider cannot be used or refused; the message is for the person (never a value)."""


class GrantRefusedError(OAuthFlowError):
    """The provider no longer accepts the grant (revoked or expired): connect again."""


@dataclass(frozen=True)
class Grant:
    """Where a connection's tokens come from: the provider's endpoints and our client there.
    Kept beside the connection (no secret: a client secret stays in the environment or sealed)."""

    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    revocation_endpoint: str = ""
    registration_endpoint: str = ""
    resource: str = ""
    scopes: list[str] = field(default_factory=list)
    client_id: str = ""
    auth_method: str = "none"

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "Grant":
        return cls(**{key: data[key] for key in cls.__dataclass_fields__ if key in data})


def _body(grant: Grant) -> dict:
    """Return what every token request carries besides the grant: the resource (RFC 8707)
    and, with HTTP Basic client authentication, the client id too (some servers, the MCP
    SDK's among them, read it from the body)."""
    extra = {"resource": grant.resource} if grant.resource else {}
    if grant.auth_method == "client_secret_basic":
        extra["client_id"] = grant.client_id
    return extra


def check_url(url: str) -> None:
    """Raise OAuthFlowError unless the deployment lets us call `url`."""
    try:
        addresses.check_url(url, allow_private=settings.CONNECTIONS_ALLOW_PRIVATE)
    except addresses.UnsafeURLError as error:
        raise OAuthFlowError(f"Refused to call {_host(url)}: {error}") from None


def _host(url: str) -> str:
    return urlsplit(url).netloc or url


async def _get_json(http: httpx.AsyncClient, url: str) -> httpx.Response | None:
    """GET `url` (checked first); None when it is not served there (another URL may be)."""
    check_url(url)
    try:
        response = await http.get(url, headers={"Accept": "application/json"})
    except httpx.HTTPError:
        raise OAuthFlowError(f"Could not reach {_host(url)}.") from None
    if response.is_redirect:
        raise OAuthFlowError(f"{_host(url)} answered with a redirect, which is not followed.")
    return response if response.status_code == 200 else None


async def discover(service: Service) -> Grant:
    """Return where `service`'s provider is, from its configuration and metadata."""
    from mcp.shared.auth_utils import resource_url_from_server_url

    client = service.oauth
    issuer, resource, scopes = client.issuer, client.resource, list(client.scopes)
    async with httpx.AsyncClient(timeout=HTTP_SECONDS, follow_redirects=False) as http:
        if resource and not issuer and not client.authorization_endpoint:
            found = await _protected_resource(http, resource)
            issuer = str(found.authorization_servers[0])
            scopes = scopes or list(found.scopes_supported or [])
        if client.authorization_endpoint:
            grant = Grant(
                issuer=issuer,
                authorization_endpoint=client.authorization_endpoint,
                token_endpoint=client.token_endpoint,
                revocation_endpoint=client.revocation_endpoint,
            )
        else:
            metadata = await _authorization_server(http, issuer, resource)
            grant = Grant(
                issuer=str(metadata.issuer),
                authorization_endpoint=str(metadata.authorization_endpoint),
                token_endpoint=str(metadata.token_endpoint),
                revocation_endpoint=str(metadata.revocation_endpoint or ""),
                registration_endpoint=str(metadata.registration_endpoint or ""),
            )
    resource = resource and resource_url_from_server_url(resource)
    grant = Grant(**grant.to_dict() | {"resource": resource, "scopes": scopes})
    for url in (grant.authorization_endpoint, grant.token_endpoint, grant.revocation_endpoint):
        if url:
            check_url(url)
    return grant


async def _protected_resource(
    http: httpx.AsyncClient, resource: str
) -> "ProtectedResourceMetadata":
    from mcp.client.auth.utils import build_protected_resource_metadata_discovery_urls
    from mcp.shared.auth import ProtectedResourceMetadata
    from mcp.shared.auth_utils import check_resource_allowed

    for url in build_protected_resource_metadata_discovery_urls(None, resource):
        response = await _get_json(http, url)
        if response is None:
            continue
        try:
            found = ProtectedResourceMetadata.model_validate_json(response.content)
        except ValidationError:
            raise OAuthFlowError(
                f"{_host(url)} sent protected-resource metadata that is not valid."
            ) from None
        if not check_resource_allowed(resource, str(found.resource)):
            raise OAuthFlowError(
                f"{_host(url)} describes another resource ({found.resource}), not {resource}."
            )
        return found
    raise OAuthFlowError(f"{_host(resource)} does not say which server signs people in to it.")


async def _authorization_server(
    http: httpx.AsyncClient, issuer: str, resource: str
) -> "OAuthMetadata":
    from mcp.client.auth.utils import build_oauth_authorization_server_metadata_discovery_urls
    from mcp.shared.auth import OAuthMetadata

    for url in build_oauth_authorization_server_metadata_discovery_urls(issuer, resource or issuer):
        response = await _get_json(http, url)
        if response is None:
            continue
        try:
            metadata = OAuthMetadata.model_validate_json(response.content)
        except ValidationError:
            raise OAuthFlowError(
                f"{_host(url)} sent authorization-server metadata that is not valid."
            ) from None
        if str(metadata.issuer) != issuer:  # RFC 8414 3.3: exactly the issuer asked about
            raise OAuthFlowError(f"{_host(url)} names another issuer ({metadata.issuer}).")
        methods = metadata.code_challenge_methods_supported
        if methods is not None and "S256" not in methods:
            raise OAuthFlowError(
                f"{_host(issuer)} does not support PKCE (S256), so it is not used."
            )
        return metadata
    raise OAuthFlowError(f"{_host(issuer)} publishes no authorization-server metadata.")


async def register(grant: Grant, redirect_uri: str) -> "OAuthClientInformationFull":
    """Register us at the provider (RFC 7591) for `redirect_uri`."""
    from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata

    if not grant.registration_endpoint:
        raise OAuthFlowError(
            f"{_host(grant.issuer)} offers no dynamic client registration: declare a client_id "
            "for this service in the services file."
        )
    check_url(grant.registration_endpoint)
    metadata = OAuthClientMetadata(
        redirect_uris=[redirect_uri],
        client_name=CLIENT_NAME,
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="client_secret_post",
        scope=" ".join(grant.scopes) or None,
    )
    async with httpx.AsyncClient(timeout=HTTP_SECONDS, follow_redirects=False) as http:
        try:
            response = await http.post(
                grant.registration_endpoint,
                json=metadata.model_dump(by_alias=True, mode="json", exclude_none=True),
            )
        except httpx.HTTPError:
            raise OAuthFlowError(f"Could not reach {_host(grant.registration_endpoint)}.") from None
    if response.status_code not in (200, 201):
        raise OAuthFlowError(
            f"{_host(grant.issuer)} refused to register this playground "
            f"(HTTP {response.status_code})."
        )
    try:
        return OAuthClientInformationFull.model_validate_json(response.content)
    except ValidationError:
        raise OAuthFlowError(
            f"{_host(grant.issuer)} sent a registration that is not valid."
        ) from None


def new_state() -> str:
    return generate_token(43)


def new_verifier() -> str:
    return generate_token(64)  # RFC 7636: 43 to 128 characters


def authorization_url(grant: Grant, redirect_uri: str, state: str, verifier: str) -> str:
    """Return where the person signs in: the provider's page, with PKCE and `state`."""
    extra = {"resource": grant.resource} if grant.resource else {}
    client = OAuth2Client(
        client_id=grant.client_id,
        redirect_uri=redirect_uri,
        scope=" ".join(grant.scopes) or None,
        code_challenge_method="S256",
    )
    url, _ = client.create_authorization_url(
        grant.authorization_endpoint, state=state, code_verifier=verifier, **extra
    )
    return url


def _refused(service: Service, error: AuthlibError, *, renewing: bool) -> OAuthFlowError:
    reason = error.error or "an error"
    if not renewing:
        return OAuthFlowError(
            f"{service.title} refused the sign-in ({reason}). Nothing was connected."
        )
    if error.error == "invalid_grant":
        return GrantRefusedError(
            f"{service.title} no longer accepts this connection (it was revoked or has "
            "expired): connect it again."
        )
    return OAuthFlowError(f"{service.title} refused ({reason}).")


async def exchange(
    service: Service, grant: Grant, secret: str, code: str, verifier: str, redirect_uri: str
) -> dict:
    """Exchange the authorization code for tokens (authlib's token dict, with `expires_at`)."""
    check_url(grant.token_endpoint)
    extra = _body(grant)
    async with AsyncOAuth2Client(
        client_id=grant.client_id,
        client_secret=secret or None,
        token_endpoint_auth_method=grant.auth_method,
        redirect_uri=redirect_uri,
        timeout=HTTP_SECONDS,
        follow_redirects=False,
    ) as client:
        try:
            return dict(
                await client.fetch_token(
                    grant.token_endpoint,
                    grant_type="authorization_code",
                    code=code,
                    code_verifier=verifier,
                    **extra,
                )
            )
        except AuthlibError as error:
            raise _refused(service, error, renewing=False) from None
        except Exception:  # the transport's errors, or an answer that is not a token
            raise OAuthFlowError(
                f"Could not get a token from {_host(grant.token_endpoint)}."
            ) from None


def refresh(service: Service, grant: Grant, secret: str, refresh_token: str) -> dict:
    """Return new tokens for `refresh_token` (sync: called with the connection's row locked)."""
    check_url(grant.token_endpoint)
    extra = _body(grant)
    with OAuth2Client(
        client_id=grant.client_id,
        client_secret=secret or None,
        token_endpoint_auth_method=grant.auth_method,
        timeout=HTTP_SECONDS,
        follow_redirects=False,
    ) as client:
        try:
            return dict(
                client.refresh_token(grant.token_endpoint, refresh_token=refresh_token, **extra)
            )
        except AuthlibError as error:
            raise _refused(service, error, renewing=True) from None
        except Exception:
            raise OAuthFlowError(
                f"Could not reach {_host(grant.token_endpoint)} to renew the connection."
            ) from None


async def revoke(grant: Grant, secret: str, token: str, hint: str) -> str:
    """Ask the provider to revoke `token` (RFC 7009); return "" or why it did not confirm."""
    if not grant.revocation_endpoint or not token:
        return ""
    try:
        check_url(grant.revocation_endpoint)
    except OAuthFlowError as error:
        return str(error)
    async with AsyncOAuth2Client(
        client_id=grant.client_id,
        client_secret=secret or None,
        revocation_endpoint_auth_method=grant.auth_method,
        timeout=HTTP_SECONDS,
        follow_redirects=False,
    ) as client:
        try:
            response = await client.revoke_token(
                grant.revocation_endpoint,
                token=token,
                token_type_hint=hint,
                body=urlencode({"client_id": grant.client_id})
                if "client_id" in _body(grant)
                else None,
            )
        except Exception:
            return f"could not reach {_host(grant.revocation_endpoint)}"
    return (
        ""
        if response.is_success
        else f"{_host(grant.revocation_endpoint)} answered HTTP {response.status_code}"
    )


def token_values(token: dict, previous: dict | None = None) -> tuple[dict[str, str], float | None]:
    """Return (the values to seal, when the access token expires) from a token response; a
    refresh that sends no new refresh token keeps the one it used."""
    values = {
        "access_token": str(token["access_token"]),
        "token_type": str(token.get("token_type") or "Bearer").title(),
        "refresh_token": str(
            token.get("refresh_token") or (previous or {}).get("refresh_token", "")
        ),
        "scope": str(token.get("scope") or ""),
    }
    expires_at = token.get("expires_at")
    if expires_at is None and token.get("expires_in"):
        expires_at = time.time() + float(token["expires_in"])
    return values, expires_at

"""A remote MCP server that requires authorization, and its own authorization server, built
with the official SDK (`MCPServer` with `AuthSettings` and an `OAuthAuthorizationServerProvider`):
protected-resource metadata (RFC 9728), authorization-server metadata (RFC 8414), dynamic
client registration (RFC 7591), authorization code with PKCE, rotating refresh tokens and
revocation (RFC 7009), all from `mcp.server.auth`. The provider signs everyone in at once (no
consent page) unless started with `deny`.

    python tests/support/mcp_oauth_server.py PORT [deny]

Environment: TEST_CLIENT_ID, TEST_CLIENT_SECRET and TEST_REDIRECT_URI pre-register a client
(for a service that declares its client id). Test-only routes: GET /test/stats (counts, never
a token), POST /test/revoke-all (as if the person revoked the app at the provider) and POST
/test/expire-access (the access tokens stop working before they said; refresh tokens still do).
"""

import hashlib
import os
import secrets
import sys
import time

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from starlette.requests import Request
from starlette.responses import JSONResponse

PORT = int(sys.argv[1])
DENY = "deny" in sys.argv[2:]
BASE = f"http://127.0.0.1:{PORT}"
ACCESS_SECONDS = 3600


class Provider:
    def __init__(self):
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.spent: set[str] = set()  # rotated refresh tokens: presenting one again is reuse
        self.stats = {"registered": 0, "codes": 0, "refreshes": 0, "reused": 0, "revoked": 0}

    async def get_client(self, client_id: str):
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.stats["registered"] += 1
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client, params) -> str:
        if DENY:
            return construct_redirect_uri(
                str(params.redirect_uri),
                error="access_denied",
                error_description="The person did not allow it.",
                state=params.state,
            )
        code = secrets.token_urlsafe(32)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
            subject="person-1",
        )
        self.stats["codes"] += 1
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client, authorization_code: str):
        found = self.codes.get(authorization_code)
        return found if found and found.client_id == client.client_id else None

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        self.access[access] = AccessToken(
            token=access,
            client_id=client_id,
            scopes=scopes,
            expires_at=int(time.time()) + ACCESS_SECONDS,
            resource=resource,
            subject="person-1",
        )
        self.refresh[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource
        )
        return OAuthToken(
            access_token=access,
            expires_in=ACCESS_SECONDS,
            refresh_token=refresh,
            scope=" ".join(scopes) or None,
        )

    async def exchange_authorization_code(self, client, authorization_code) -> OAuthToken:
        del self.codes[authorization_code.code]  # a code is used once
        return self._issue(client.client_id, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client, refresh_token: str):
        if refresh_token in self.spent:
            self.stats["reused"] += 1
        found = self.refresh.get(refresh_token)
        return found if found and found.client_id == client.client_id else None

    async def exchange_refresh_token(self, client, refresh_token, scopes) -> OAuthToken:
        self.stats["refreshes"] += 1
        del self.refresh[refresh_token.token]  # rotation: the old one is spent
        self.spent.add(refresh_token.token)
        return self._issue(client.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str):
        found = self.access.get(token)
        return found if found and (found.expires_at or 0) > time.time() else None

    async def revoke_token(self, token) -> None:
        self.stats["revoked"] += 1
        self.revoke_all(token.client_id)

    def revoke_all(self, client_id: str | None = None) -> None:
        for tokens in (self.access, self.refresh):
            for key in [k for k, v in tokens.items() if client_id in (None, v.client_id)]:
                del tokens[key]


provider = Provider()
if os.environ.get("TEST_CLIENT_ID"):
    provider.clients[os.environ["TEST_CLIENT_ID"]] = OAuthClientInformationFull(
        client_id=os.environ["TEST_CLIENT_ID"],
        client_secret=os.environ.get("TEST_CLIENT_SECRET"),
        redirect_uris=[os.environ["TEST_REDIRECT_URI"]],
        token_endpoint_auth_method="client_secret_basic",
        grant_types=["authorization_code", "refresh_token"],
    )

server = MCPServer(
    "oauth-test-server",
    auth_server_provider=provider,
    auth=AuthSettings(
        issuer_url=BASE,
        resource_server_url=f"{BASE}/mcp",
        client_registration_options=ClientRegistrationOptions(enabled=True),
        revocation_options=RevocationOptions(enabled=True),
        validate_token_resource=True,
    ),
)


@server.tool()
def whoami() -> str:
    """Say who the bearer token signs in (and its digest, never the token)."""
    token = get_access_token()
    digest = hashlib.sha256(token.token.encode()).hexdigest()[:16]
    return f"Signed in as {token.subject} (token sha256 {digest})"


@server.custom_route("/test/stats", methods=["GET"])
async def stats(request: Request) -> JSONResponse:
    return JSONResponse(provider.stats | {"live_access_tokens": len(provider.access)})


@server.custom_route("/test/revoke-all", methods=["POST"])
async def revoke_all(request: Request) -> JSONResponse:
    provider.revoke_all()
    return JSONResponse({"revoked": True})


@server.custom_route("/test/expire-access", methods=["POST"])
async def expire_access(request: Request) -> JSONResponse:
    provider.access.clear()
    return JSONResponse({"expired": True})


if __name__ == "__main__":
    server.run("streamable-http", host="127.0.0.1", port=PORT)

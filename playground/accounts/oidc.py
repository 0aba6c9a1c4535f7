"""OpenID Connect with the configured provider, through authlib's Django client.

authlib does the protocol: discovery, the authorization URL with PKCE (S256), `state` and
`nonce` kept in the session and checked at the callback, the code exchange, and the ID
token's checks (signature against the provider's JWKS, issuer, audience, expiry, nonce). Here
we only say which issuer and audience to expect, and turn each failure into words for the
person. Discovery is read at every sign-in, so a provider that is down is found at once.
Nothing from the provider is kept but what `people.Person` holds; no token is stored.
"""

import os
from urllib.parse import urlsplit

import requests
from authlib.integrations.base_client import MismatchingStateError, OAuthError
from authlib.integrations.django_client import OAuth
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from joserfc.errors import BadSignatureError, ClaimError, ExpiredTokenError, JoseError

from playground.accounts.people import Person, group_names

HTTP_SECONDS = 10


class SignOnError(Exception):
    """A sign-in that cannot go on; the message says what happened, for the person."""


def enabled() -> bool:
    return bool(settings.OIDC_ISSUER)


def provider_name() -> str:
    return settings.OIDC_PROVIDER_NAME or urlsplit(settings.OIDC_ISSUER).netloc


def _client():
    """Return authlib's client for the provider (made anew: discovery is read again)."""
    oauth = OAuth()
    return oauth.register(
        "sign_on",
        client_id=settings.OIDC_CLIENT_ID,
        client_secret=os.environ.get(settings.OIDC_CLIENT_SECRET_ENV, "") or None,
        server_metadata_url=settings.OIDC_ISSUER.rstrip("/") + "/.well-known/openid-configuration",
        client_kwargs={
            "scope": " ".join(settings.OIDC_SCOPES),
            "code_challenge_method": "S256",
            "default_timeout": HTTP_SECONDS,
        },
    )


def _unreachable() -> SignOnError:
    return SignOnError(
        f"{provider_name()} could not be reached, so nobody can sign in with it right now. "
        "Try again in a few minutes."
    )


def start(request: HttpRequest, redirect_uri: str) -> HttpResponse:
    """Return the redirect to the provider's sign-in page (state, nonce and PKCE verifier go
    into the session)."""
    try:
        return _client().authorize_redirect(request, redirect_uri)
    except (requests.RequestException, ValueError):
        raise _unreachable() from None


def finish(request: HttpRequest) -> Person:
    """Check the callback and return who signed in; raise SignOnError saying why not."""
    client = _client()
    expected = {
        "iss": {"essential": True, "values": [settings.OIDC_ISSUER]},
        "aud": {"essential": True, "values": [settings.OIDC_CLIENT_ID]},
    }
    try:
        token = client.authorize_access_token(request, claims_options=expected)
        if "userinfo" not in token:
            raise SignOnError(f"{provider_name()} sent no ID token, so the sign-in was refused.")
        claims = dict(token["userinfo"])
        if client.load_server_metadata().get("userinfo_endpoint"):
            more = client.userinfo(token=token)
            if more.get("sub") != claims["sub"]:
                raise SignOnError(
                    f"{provider_name()} described someone else than the person who signed in, "
                    "so the sign-in was refused."
                )
            claims = dict(more) | claims
    except MismatchingStateError:
        raise SignOnError(
            "This sign-in link is not valid any more: it was already used, has expired, or was "
            "started in another browser. Nothing was changed."
        ) from None
    except OAuthError as error:
        raise _refused(error) from None
    except requests.RequestException:
        raise _unreachable() from None
    except JoseError as error:
        raise SignOnError(
            f"The sign-in from {provider_name()} did not pass its checks: the ID token "
            f"{_what_is_wrong(error)}. Nothing was changed."
        ) from None
    return Person(
        issuer=settings.OIDC_ISSUER,
        subject=str(claims["sub"]),
        username=str(claims.get("preferred_username") or claims.get("email") or claims["sub"]),
        name=str(claims.get("name") or ""),
        email=str(claims.get("email") or ""),
        email_verified=_verified(claims.get("email_verified")),
        groups=group_names(claims.get(settings.OIDC_GROUPS_CLAIM)),
    )


def _verified(value: object) -> bool | None:
    """Return what `email_verified` says (some providers send "true"/"false" as strings)."""
    if isinstance(value, str):
        return value.strip().lower() == "true"
    return value if isinstance(value, bool) else None


def _refused(error: OAuthError) -> SignOnError:
    if error.error == "access_denied":
        return SignOnError(
            f"{provider_name()} did not sign you in (the sign-in was cancelled or refused "
            "there). Nothing was changed."
        )
    if error.error == "invalid_grant":
        return SignOnError(
            f"{provider_name()} refused the sign-in code: it was already used or has expired. "
            "Nothing was changed."
        )
    return SignOnError(
        f"{provider_name()} refused the sign-in ({(error.error or 'no reason given')[:100]}). "
        "Nothing was changed."
    )


def _what_is_wrong(error: JoseError) -> str:
    if isinstance(error, BadSignatureError):
        return f"is not signed with {provider_name()}'s keys"
    if isinstance(error, ExpiredTokenError):
        return "has expired (if this keeps happening, check this server's clock)"
    if isinstance(error, ClaimError):
        return {
            "nonce": "belongs to another sign-in (its nonce does not match)",
            "iss": "comes from another issuer",
            "aud": "was issued for another application",
            "azp": "was issued for another application",
        }.get(error.claim, f"has a wrong {error.claim!r} claim")
    return "could not be read"


def end_session_url(post_logout_redirect_uri: str) -> str | None:
    """Return the provider's end-session URL (RP-initiated logout), or None where it offers
    none or cannot be reached. No ID token is kept, so the client id says who asks."""
    try:
        return _client().create_logout_url(
            post_logout_redirect_uri=post_logout_redirect_uri, client_id=settings.OIDC_CLIENT_ID
        )["url"]
    except (requests.RequestException, ValueError, RuntimeError):
        return None

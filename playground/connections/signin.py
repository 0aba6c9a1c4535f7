"""Connecting by signing in at a provider: start (a pending row, then the provider's page) and
finish (the callback: the row taken once, the code exchanged, the connection stored).

Nothing waits while the person is at the provider: `begin` returns the URL to send them to,
and `finish` runs when they come back. The row is found by the digest of `state` and only for
the person whose session started it, and deleted as it is taken, so a mismatched, someone
else's, expired or replayed state is refused before any code is sent anywhere.
"""

import hashlib
from datetime import timedelta

from asgiref.sync import sync_to_async
from django.db import IntegrityError, transaction
from django.utils import timezone

from playground.connections import oauth, services, vault
from playground.connections.models import (
    Connection,
    OAuthAuthorization,
    OAuthRegistration,
    client_secret,
    timestamp_to_datetime,
)

SIGN_IN_SECONDS = 600
STATE_REFUSED = (
    "This sign-in link is not valid any more (it was already used, has expired, or was started "
    "by someone else). Nothing was connected: start again from the card or the Connections page."
)
MAX_ERROR_CHARS = 200


def _digest(state: str) -> str:
    return hashlib.sha256(state.encode()).hexdigest()


async def _client(service: services.Service, grant: oauth.Grant, redirect_uri: str) -> oauth.Grant:
    """Return `grant` with our client id at the provider: declared, else registered (once)."""
    if service.oauth.client_id:
        method = "client_secret_basic" if service.oauth.client_secret_env else "none"
        return oauth.Grant(
            **grant.to_dict() | {"client_id": service.oauth.client_id, "auth_method": method}
        )
    known = OAuthRegistration.objects.filter(issuer=grant.issuer, redirect_uri=redirect_uri)
    registration = await known.afirst()
    if registration is None:
        info = await oauth.register(grant, redirect_uri)
        registration = await sync_to_async(_keep_registration)(grant.issuer, redirect_uri, info)
    method = (
        "client_secret_post"
        if registration.sealed and await sync_to_async(registration.secret)()
        else "none"
    )
    return oauth.Grant(
        **grant.to_dict() | {"client_id": registration.client_id, "auth_method": method}
    )


def _keep_registration(issuer: str, redirect_uri: str, info) -> OAuthRegistration:
    registration = OAuthRegistration(
        issuer=issuer, redirect_uri=redirect_uri, client_id=info.client_id
    )
    registration.sealed = vault.seal(
        0, registration.id, {"client_secret": info.client_secret or ""}
    )
    try:
        with transaction.atomic():
            registration.save()
    except IntegrityError:  # another request registered first: use theirs
        return OAuthRegistration.objects.get(issuer=issuer, redirect_uri=redirect_uri)
    return registration


async def begin(user, service: services.Service, *, label: str, part, redirect_uri: str) -> str:
    """Start signing `user` in to `service`; return the provider's URL to send them to."""
    vault.keys()  # (raises VaultError when nothing could be kept)
    grant = await _client(service, await oauth.discover(service), redirect_uri)
    state, verifier = oauth.new_state(), oauth.new_verifier()
    pending = OAuthAuthorization(
        owner=user,
        service=service.name,
        label=label,
        part=part,
        state_digest=_digest(state),
        grant=grant.to_dict(),
        redirect_uri=redirect_uri,
    )
    pending.sealed = vault.seal(user.pk, pending.id, {"code_verifier": verifier})
    await pending.asave()
    return oauth.authorization_url(grant, redirect_uri, state, verifier)


def _take(user, state: str) -> OAuthAuthorization | None:
    """Take the person's pending sign-in for `state` (once: it is deleted as it is taken)."""
    if not state:
        return None
    with transaction.atomic():
        pending = (
            OAuthAuthorization.objects.select_for_update()
            .filter(owner=user, state_digest=_digest(state))
            .first()
        )
        if pending is None:
            return None
        pending.code_verifier = pending.verifier()
        OAuthAuthorization.objects.filter(pk=pending.pk).delete()
    if pending.created_at < timezone.now() - timedelta(seconds=SIGN_IN_SECONDS):
        return None
    return pending


async def finish(user, query) -> tuple[Connection, OAuthAuthorization]:
    """Finish a sign-in from the callback's query; raise OAuthFlowError saying why not."""
    pending = await sync_to_async(_take)(user, query.get("state", ""))
    if pending is None:
        raise oauth.OAuthFlowError(STATE_REFUSED)
    try:
        service = await sync_to_async(services.get)(pending.service)
    except (services.UnknownServiceError, services.ServicesFileError) as error:
        raise oauth.OAuthFlowError(str(error)) from None
    grant = oauth.Grant.from_dict(pending.grant)
    if error := query.get("error"):
        described = query.get("error_description", "")[:MAX_ERROR_CHARS]
        raise oauth.OAuthFlowError(
            f"{service.title} did not connect ({error[:MAX_ERROR_CHARS]}"
            f"{': ' + described if described else ''}). Nothing was connected."
        )
    iss = query.get("iss")
    if iss is not None and grant.issuer and iss != grant.issuer:  # RFC 9207
        raise oauth.OAuthFlowError(
            f"The sign-in came back from another issuer ({iss[:MAX_ERROR_CHARS]})."
        )
    code = query.get("code", "")
    if not code:
        raise oauth.OAuthFlowError(f"{service.title} sent no authorization code.")
    secret = await sync_to_async(client_secret)(service, grant)
    token = await oauth.exchange(
        service, grant, secret, code, pending.code_verifier, pending.redirect_uri
    )
    values, expires_at = oauth.token_values(token)
    connection = await sync_to_async(Connection.store)(
        user,
        service.name,
        pending.label,
        values,
        expires_at=timestamp_to_datetime(expires_at),
        grant=grant.to_dict(),
    )
    return connection, pending


async def revoke_at_provider(connection: Connection) -> str:
    """Ask the provider to revoke a connection's tokens; return "" or why it did not confirm."""
    if not connection.grant:
        return ""
    try:
        service = await sync_to_async(services.get)(connection.service)
        values = await sync_to_async(connection.values)()
    except (services.UnknownServiceError, services.ServicesFileError, vault.VaultError) as error:
        return str(error)
    grant = oauth.Grant.from_dict(connection.grant)
    secret = await sync_to_async(client_secret)(service, grant)
    if values.get("refresh_token"):
        return await oauth.revoke(grant, secret, values["refresh_token"], "refresh_token")
    return await oauth.revoke(grant, secret, values["access_token"], "access_token")

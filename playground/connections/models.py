"""A Connection: one person's credential for one service, sealed in the vault."""

import os
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.utils import timezone

from playground.connections import services, vault

if TYPE_CHECKING:
    from playground.connections import oauth

# An access token this close to running out is renewed before it is used.
RENEW_BEFORE = timedelta(seconds=60)


class ConnectionGoneError(LookupError):
    """The reference names no connection of this person (revoked, or never theirs)."""


class ConnectionQuerySet(models.QuerySet):
    def owned_by(self, user) -> "ConnectionQuerySet":
        """Return the person's own connections (anyone else's are not there)."""
        return self.filter(owner=user)


class Connection(models.Model):
    # A random id: it is the reference parts and steps carry, and half the associated data.
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="connections"
    )
    service = models.CharField(max_length=41)
    label = models.CharField(max_length=100)
    sealed = models.BinaryField(editable=False, help_text="The credential, encrypted.")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    last_tested_at = models.DateTimeField(null=True, blank=True)
    # An OAuth connection: when its access token runs out, and where it was obtained (the
    # provider's token and revocation endpoints, our client id there; no secret).
    expires_at = models.DateTimeField(null=True, blank=True)
    grant = models.JSONField(default=dict, blank=True)

    objects = ConnectionQuerySet.as_manager()

    class Meta:
        ordering = ["service", "label", "created_at"]
        indexes = [models.Index(fields=["owner", "service"])]

    def __str__(self) -> str:
        return f"{self.service}: {self.label}"

    @classmethod
    def store(
        cls, owner, service: str, label: str, values: dict[str, str], **oauth
    ) -> "Connection":
        """Seal `values` for `owner` and save them as a new connection (`oauth`: its
        `expires_at` and `grant`)."""
        connection = cls(owner=owner, service=service, label=label, **oauth)
        connection.sealed = vault.seal(owner.pk, connection.id, values)
        connection.save()
        return connection

    def values(self) -> dict[str, str]:
        """Return the credential's values, decrypted now (only where they are used)."""
        return vault.open_sealed(self.owner_id, self.id, self.sealed)

    def reseal(self) -> None:
        """Seal the values again with the current key (rotation)."""
        self.sealed = vault.seal(self.owner_id, self.id, self.values())
        self.save(update_fields=["sealed"])

    def renew(self, service: services.Service, values: dict[str, str]) -> dict[str, str]:
        """Refresh the tokens (the caller holds the row locked) and seal the new ones.

        Raise ConnectionGoneError when the provider no longer accepts the grant (the
        connection is deleted), or cannot be reached to renew it (it is kept).
        """
        from playground.connections import (
            oauth,  # the provider's protocol, only when a token runs out
        )

        grant = oauth.Grant.from_dict(self.grant)
        try:
            if not values.get("refresh_token"):
                raise oauth.GrantRefusedError(
                    f"Your {service.title} connection has expired and cannot be renewed: "
                    "connect it again."
                )
            token = oauth.refresh(
                service, grant, client_secret(service, grant), values["refresh_token"]
            )
        except oauth.GrantRefusedError as error:
            self.delete()
            raise ConnectionGoneError(str(error)) from None
        except oauth.OAuthFlowError as error:
            raise ConnectionGoneError(str(error)) from None
        values, expires_at = oauth.token_values(token, values)
        self.sealed = vault.seal(self.owner_id, self.id, values)
        self.expires_at = timestamp_to_datetime(expires_at)
        self.save(update_fields=["sealed", "expires_at"])
        return values

    @property
    def key_id(self) -> str:
        """Return which key sealed it, for the admin (a key's id, never the key)."""
        return bytes(self.sealed)[: vault.KEY_ID_BYTES].hex()

    @property
    def reference(self) -> dict:
        """Return what a settled `connection` card carries: a reference, never a value."""
        return {"connection": str(self.id), "service": self.service, "label": self.label}


def timestamp_to_datetime(timestamp: float | None) -> datetime | None:
    return None if timestamp is None else datetime.fromtimestamp(float(timestamp), tz=UTC)


def client_secret(service: services.Service, grant: "oauth.Grant") -> str:
    """Return our client secret at the provider (from the environment, or sealed), or ""."""
    declared = service.oauth
    if declared and declared.client_id == grant.client_id and declared.client_secret_env:
        return os.environ.get(declared.client_secret_env, "")
    registration = OAuthRegistration.objects.filter(
        issuer=grant.issuer, client_id=grant.client_id
    ).first()
    return registration.secret() if registration else ""


@dataclass(frozen=True, repr=False)
class Credential:
    """A connection's values at the moment of use; its repr never shows them."""

    connection_id: str
    service: services.Service
    values: dict[str, str] = field(repr=False)

    def __getitem__(self, name: str) -> str:
        return self.values[name]

    def __repr__(self) -> str:
        return f"<Credential {self.service.name} {self.connection_id}>"

    def headers(self) -> dict[str, str]:
        """Return the HTTP headers the service declares, filled in."""
        return self.service.present(self.service.headers, self.values)

    def environment(self) -> dict[str, str]:
        """Return the environment variables the service declares, filled in."""
        return self.service.present(self.service.env, self.values)


def use(owner, reference: str, *, refused: Credential | None = None) -> Credential:
    """Return the credential of `owner`'s connection `reference`, marking it used now.

    An OAuth connection whose access token runs out is renewed first, with its row locked
    (`select_for_update`; SQLite's immediate transactions lock the database), so of two uses at
    once one refreshes and the other finds the new tokens: a rotating refresh token is never
    sent twice. So is one the service `refused` (HTTP 401) before it ran out, unless another
    use renewed it meanwhile (the new tokens are returned then; a credential typed by hand
    comes back as it was: there is nothing to renew). Raise ConnectionGoneError when the
    person has no such connection (revoked, someone else's or not a reference at all) or the
    provider no longer accepts its grant (it is deleted then, so asking for it again shows the
    card).
    """
    with transaction.atomic():
        try:
            connection = Connection.objects.owned_by(owner).select_for_update().get(pk=reference)
        except (Connection.DoesNotExist, ValidationError):  # (a malformed id: ValidationError)
            raise ConnectionGoneError(
                "That connection is gone (it was revoked, or is not yours): connect it again."
            ) from None
        service = services.get(connection.service)
        values, gone = connection.values(), None
        expires_at = connection.expires_at
        running_out = expires_at and expires_at - RENEW_BEFORE <= timezone.now()
        was_refused = refused is not None and refused.values == values
        if connection.grant and (running_out or was_refused):
            try:
                values = connection.renew(service, values)
            except ConnectionGoneError as error:  # (kept until the deletion commits)
                gone = error
        if gone is None:
            Connection.objects.filter(pk=connection.pk).update(last_used_at=timezone.now())
    if gone is not None:
        raise gone
    return Credential(str(connection.id), service, values)


def latest_connection(owner, service: str) -> Connection | None:
    """Return `owner`'s most recently used connection to `service`, if any."""
    return (
        Connection.objects.owned_by(owner)
        .filter(service=service)
        .order_by(models.F("last_used_at").desc(nulls_last=True), "-created_at")
        .first()
    )


def latest(owner, service: str) -> str | None:
    """Return the reference of `owner`'s most recently used connection to `service`, if any."""
    found = latest_connection(owner, service)
    return None if found is None else str(found.id)


class OAuthRegistration(models.Model):
    """Our client at an authorization server that registered us dynamically (RFC 7591): one
    per issuer and redirect address, shared by everyone; its secret (if any) is sealed."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    issuer = models.URLField(max_length=500)
    redirect_uri = models.URLField(max_length=500)
    client_id = models.CharField(max_length=500)
    sealed = models.BinaryField(editable=False, help_text="The client secret, encrypted.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["issuer", "redirect_uri"], name="one_client_per_issuer")
        ]

    def __str__(self) -> str:
        return f"{self.client_id} at {self.issuer}"

    def secret(self) -> str:
        return vault.open_sealed(0, self.id, self.sealed).get("client_secret", "")


class OAuthAuthorization(models.Model):
    """A sign-in under way at a provider: the person went there with `state`; the callback
    finds this row by the state's digest and deletes it, so a state (and its code) is used once.
    Nothing is held open meanwhile. The PKCE verifier is sealed."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    service = models.CharField(max_length=41)
    label = models.CharField(max_length=100)
    part = models.ForeignKey(
        "elicitation.Part", null=True, on_delete=models.CASCADE, related_name="+"
    )
    state_digest = models.CharField(max_length=64, unique=True)
    grant = models.JSONField(default=dict)  # the endpoints and client id it was started with
    redirect_uri = models.URLField(max_length=500)
    sealed = models.BinaryField(editable=False, help_text="The PKCE verifier, encrypted.")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.service}: signing in"

    def verifier(self) -> str:
        return vault.open_sealed(self.owner_id, self.id, self.sealed)["code_verifier"]

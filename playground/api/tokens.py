"""API tokens: made once and shown once, kept only as a hash; the webhook signing secret.

A token is long and random, so one SHA-256 is enough to keep it (a password needs a slow
hash because people choose guessable ones; nobody chooses these).
"""

import hashlib
import secrets

from django.utils import timezone
from django.utils.crypto import salted_hmac

from playground.api.models import ApiToken

TOKEN_PREFIX = "epg_"


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def create_token(owner, name: str, webhook_url: str = "") -> tuple[ApiToken, str]:
    """Make a token for `owner`; return it and its key (the only time the key is known)."""
    key = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        owner=owner,
        name=name,
        prefix=key[:12],
        key_hash=hash_key(key),
        webhook_url=webhook_url,
    )
    return token, key


def find_token(key: str) -> ApiToken | None:
    """Return the active token with this key (and its owner), or None."""
    tokens = ApiToken.objects.active().select_related("owner")
    token = tokens.filter(key_hash=hash_key(key), owner__is_active=True).first()
    return token


def revoke(token: ApiToken) -> None:
    ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())


def signing_secret(token: ApiToken) -> str:
    """Return the secret that signs this token's webhooks: derived from SECRET_KEY, not stored."""
    return salted_hmac("api.webhook-signing", token.key_hash, algorithm="sha256").hexdigest()

"""Seal and open credentials: AES-GCM with keys from `CONNECTIONS_KEY`.

`CONNECTIONS_KEY` is one or more comma-separated keys, each 32 random bytes in URL-safe
base64 (`make run` creates one in `.connections-key`). The first key seals; every key listed
opens, so a key is rotated by putting a new one first and running `manage.py
rotate_connections` before removing the old one. A sealed value is the key's id (4 bytes of its
SHA-256), a 12-byte nonce and the ciphertext; the owner's id and the connection's id are the
associated data, so a ciphertext copied into another row (or another person's) does not open.
"""

import base64
import binascii
import hashlib
import json
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from django.conf import settings

KEY_ID_BYTES = 4
NONCE_BYTES = 12


class VaultError(Exception):
    """The vault cannot seal or open a credential; the message says why (never a value)."""


def keys() -> list[tuple[bytes, AESGCM]]:
    """Return the configured keys as (id, cipher), the sealing key first."""
    found = []
    for number, text in enumerate(settings.CONNECTIONS_KEYS, start=1):
        try:
            key = base64.urlsafe_b64decode(text.strip() + "=" * (-len(text.strip()) % 4))
        except (binascii.Error, ValueError):
            key = b""
        if len(key) != 32:
            raise VaultError(
                f"Key {number} in CONNECTIONS_KEY is not 32 bytes of URL-safe base64; make one "
                "with: python -c 'import base64, os; "
                "print(base64.urlsafe_b64encode(os.urandom(32)).decode())'"
            )
        found.append((hashlib.sha256(key).digest()[:KEY_ID_BYTES], AESGCM(key)))
    if not found:
        raise VaultError(
            "This playground has no CONNECTIONS_KEY, so it cannot keep connections: set it in "
            "the environment (make run creates one in .connections-key)."
        )
    return found


def _associated(owner_id: int, connection_id) -> bytes:
    return f"connection:{owner_id}:{connection_id}".encode()


def seal(owner_id: int, connection_id, values: dict[str, str]) -> bytes:
    """Return `values` encrypted with the sealing key, bound to the owner and connection."""
    key_id, cipher = keys()[0]
    nonce = os.urandom(NONCE_BYTES)
    plain = json.dumps(values, sort_keys=True).encode()
    return key_id + nonce + cipher.encrypt(nonce, plain, _associated(owner_id, connection_id))


def open_sealed(owner_id: int, connection_id, sealed: bytes) -> dict[str, str]:
    """Return the values `seal` encrypted, or raise VaultError (wrong key, row or bytes)."""
    sealed = bytes(sealed)
    key_id, nonce = sealed[:KEY_ID_BYTES], sealed[KEY_ID_BYTES : KEY_ID_BYTES + NONCE_BYTES]
    cipher = dict(keys()).get(key_id)
    if cipher is None:
        raise VaultError(
            "This connection was sealed with a key that is no longer in CONNECTIONS_KEY."
        )
    try:
        plain = cipher.decrypt(
            nonce, sealed[KEY_ID_BYTES + NONCE_BYTES :], _associated(owner_id, connection_id)
        )
    except InvalidTag:
        raise VaultError("This connection cannot be opened: it does not belong here.") from None
    return json.loads(plain)


def sealed_with_current_key(sealed: bytes) -> bool:
    """Return whether `sealed` used the sealing key (rotation re-seals the others)."""
    return bytes(sealed)[:KEY_ID_BYTES] == keys()[0][0]

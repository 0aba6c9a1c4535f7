"""The address check for every URL the server calls on someone's say-so: webhooks, OAuth
endpoints (configured or discovered) and their metadata.

Only http(s) URLs whose host resolves to public addresses pass, unless the deployment allows
private and loopback ones (a setting per use: API_WEBHOOK_ALLOW_PRIVATE,
CONNECTIONS_ALLOW_PRIVATE).
"""

import ipaddress
import socket
from urllib.parse import urlsplit


class UnsafeURLError(ValueError):
    """A URL this server will not call."""


def check_url(url: str, *, allow_private: bool) -> None:
    """Raise UnsafeURLError unless `url` is http(s) and its host resolves to public addresses."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UnsafeURLError("Use an http:// or https:// address.")
    if allow_private:
        return
    try:
        found = socket.getaddrinfo(parts.hostname, parts.port or 443, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as error:
        raise UnsafeURLError(f"{parts.hostname} does not resolve.") from error
    for *_, address in found:
        if not ipaddress.ip_address(address[0].split("%")[0]).is_global:
            raise UnsafeURLError(f"{parts.hostname} is a private or local address.")

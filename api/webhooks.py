"""Webhooks: when an external agent's question settles, POST the envelope to the token's URL.

The delivery row is written in the settlement's own transaction, then sent right after the
commit, on the server's event loop, and tried again with backoff until the receiver answers
2xx. Every try is kept (the admin shows them). Each POST is signed:

    Webhook-Timestamp: <unix seconds>
    Webhook-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>" with the signing secret>

Only http(s) URLs whose host resolves to public addresses are called (unless
API_WEBHOOK_ALLOW_PRIVATE), and redirects are not followed.
"""

import asyncio
import hashlib
import hmac
import ipaddress
import json
import logging
import socket
import time
from datetime import timedelta
from urllib.parse import urlsplit

import httpx
from asgiref.sync import async_to_sync
from django.conf import settings
from django.utils import timezone

from api.external import KIND
from api.models import DeliveryAttempt, ExternalConversation, WebhookDelivery
from api.tokens import signing_secret
from api.waiting import in_db
from elicitation.models import Part
from playground import server_loop

logger = logging.getLogger(__name__)

# Seconds to wait before each retry; a delivery gives up after the last one.
BACKOFF_SECONDS = (1, 5, 30, 120, 600)


class UnsafeURLError(ValueError):
    """A webhook URL this server will not call."""


def check_url(url: str) -> None:
    """Raise UnsafeURLError unless `url` is http(s) and its host resolves to public addresses."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UnsafeURLError("Use an http:// or https:// address.")
    if settings.API_WEBHOOK_ALLOW_PRIVATE:
        return
    try:
        found = socket.getaddrinfo(parts.hostname, parts.port or 443, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as error:
        raise UnsafeURLError(f"{parts.hostname} does not resolve.") from error
    for *_, address in found:
        if not ipaddress.ip_address(address[0].split("%")[0]).is_global:
            raise UnsafeURLError(f"{parts.hostname} is a private or local address.")


def signature(secret: str, timestamp: str, body: bytes) -> str:
    """Return the Webhook-Signature value for a body sent at `timestamp`."""
    digest = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return "sha256=" + digest.hexdigest()


def record_delivery(sender, part: Part, **kwargs) -> None:
    """Inside the settlement's transaction: owe a delivery if the question's token has a URL."""
    if part.conversation.agent.kind != KIND:
        return
    link = ExternalConversation.objects.filter(conversation_id=part.conversation_id)
    link = link.select_related("token").first()
    if link and link.token.webhook_url and link.token.is_active:
        WebhookDelivery.objects.create(
            token=link.token, part=part, url=link.token.webhook_url, next_attempt_at=timezone.now()
        )


def deliver_soon(sender, part: Part, **kwargs) -> None:
    """After the commit: start sending what the settlement owes, on the server's loop."""
    if part.conversation.agent.kind != KIND:
        return
    if not server_loop.submit(deliver_for_part(part.pk)):
        async_to_sync(deliver_for_part)(part.pk, retry=False)  # no server: one try, here


async def deliver_for_part(part_id: int, *, retry: bool = True) -> None:
    ids = await in_db(_pending_for_part)(part_id)
    await asyncio.gather(*(deliver(delivery_id, retry=retry) for delivery_id in ids))


def _pending_for_part(part_id: int) -> list[int]:
    pending = WebhookDelivery.objects.filter(part_id=part_id, status=WebhookDelivery.Status.PENDING)
    return list(pending.values_list("pk", flat=True))


async def deliver(delivery_id: int, *, retry: bool = True) -> None:
    """Send one delivery, trying again after each backoff step until it succeeds or gives up."""
    delivery, body, secret = await in_db(_load)(delivery_id)
    async with httpx.AsyncClient(follow_redirects=False, timeout=10) as client:
        while delivery.status == WebhookDelivery.Status.PENDING:
            status_code, error = await _post(client, delivery.url, body, secret)
            delivery = await in_db(_record)(delivery_id, status_code, error)
            if delivery.status != WebhookDelivery.Status.PENDING or not retry:
                return
            await asyncio.sleep((delivery.next_attempt_at - timezone.now()).total_seconds())


def _load(delivery_id: int) -> tuple[WebhookDelivery, bytes, str]:
    delivery = WebhookDelivery.objects.select_related("token", "part").get(pk=delivery_id)
    part = delivery.part
    body = {
        "requestId": part.pk,
        "conversationId": part.conversation_id,
        "state": part.state,
        "envelope": part.response,
    }
    return delivery, json.dumps(body).encode(), signing_secret(delivery.token)


async def _post(client: httpx.AsyncClient, url: str, body: bytes, secret: str):
    timestamp = str(int(time.time()))
    headers = {
        "Content-Type": "application/json",
        "Webhook-Timestamp": timestamp,
        "Webhook-Signature": signature(secret, timestamp, body),
    }
    try:
        await asyncio.to_thread(check_url, url)  # DNS can block: keep it off the loop
        response = await client.post(url, content=body, headers=headers)
    except (UnsafeURLError, httpx.HTTPError) as error:
        return None, (str(error) or type(error).__name__)[:300]
    return response.status_code, ""


def _record(delivery_id: int, status_code: int | None, error: str) -> WebhookDelivery:
    delivery = WebhookDelivery.objects.get(pk=delivery_id)
    DeliveryAttempt.objects.create(delivery=delivery, status_code=status_code, error=error)
    delivery.attempts += 1
    if status_code is not None and 200 <= status_code < 300:
        delivery.status = WebhookDelivery.Status.DELIVERED
    elif delivery.attempts > len(BACKOFF_SECONDS):
        delivery.status = WebhookDelivery.Status.FAILED
    else:
        wait = timedelta(seconds=BACKOFF_SECONDS[delivery.attempts - 1])
        delivery.next_attempt_at = timezone.now() + wait
    delivery.save(update_fields=["status", "attempts", "next_attempt_at"])
    return delivery

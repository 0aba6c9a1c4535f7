"""Webhooks: when an external agent's question settles, POST the envelope to the token's URL.

Delivery is at-least-once. The delivery row is written in the settlement's own transaction,
and from then on the WebhookDelivery table is the queue, claimed the way turns are
(`playground.tasks`): every web process runs a `WebhookSender` on its event loop (registered
with `playground.startup.run_at_start` in `api.apps`, since the playground never imports the
API). It takes due deliveries with `select_for_update(skip_locked=True)` and leases them (a
token, and `next_attempt_at` moved LEASE_SECONDS on) in a transaction committed before the
POST, so one process sends each attempt: the others skip the row while it is locked and find
it not due once the lease is written. The attempt row and the delivery's new state (delivered,
the next retry, or failed) commit together in one transaction, and only while the lease is
still its sender's. The process that settles a question wakes its own sender; the others look
again when the next pending delivery falls due, or every RECOVERY_SWEEP_SECONDS.

Because the schedule lives in the database, a retry that fell due while no web process ran is
sent by the first one that starts, and an attempt whose sender died mid-POST goes out again
when its lease runs out. After a 2xx nothing more is sent; after any other answer or an
error, attempt n+1 is due API_WEBHOOK_BACKOFF[n-1] seconds later (1, 5, 30, 120 and 600 s by
default), and the delivery is failed after the last. Every try is kept (the admin shows them).

Each POST carries:

    Webhook-Id: <a UUID, the same on every attempt of one delivery>
    Webhook-Timestamp: <unix seconds of this attempt>
    Webhook-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>" with the signing secret>

A receiver answers 2xx once it has kept the body, and drops a Webhook-Id it has seen: an
attempt whose answer was lost, or whose sender died before writing it down, is sent again.

Only http(s) URLs whose host resolves to public addresses are called (unless
API_WEBHOOK_ALLOW_PRIVATE), and redirects are not followed.
"""

import asyncio
import hashlib
import hmac
import json
import logging
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

import httpx
from asgiref.sync import async_to_sync
from django.conf import settings
from django.db import transaction
from django.db.models import Min
from django.utils import timezone

from api.external import KIND
from api.models import DeliveryAttempt, ExternalConversation, WebhookDelivery
from api.tokens import signing_secret
from api.waiting import in_db
from connections import addresses
from connections.addresses import UnsafeURLError
from elicitation.models import Part
from playground import server_loop

logger = logging.getLogger(__name__)

# An attempt (the address check, connecting, sending, the answer) gets this long in all...
TIMEOUT_SECONDS = 10
# ...well inside its lease, so two processes never send the same attempt at once.
LEASE_SECONDS = 30
IN_FLIGHT = 20  # deliveries one process sends at once
# A due delivery this process could not claim is being leased by another one right now.
SOONEST_SECONDS = 0.05


def check_url(url: str) -> None:
    """Raise UnsafeURLError unless `url` is http(s) and its host resolves to public addresses."""
    addresses.check_url(url, allow_private=settings.API_WEBHOOK_ALLOW_PRIVATE)


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
    """After the commit: wake this server's sender, or with no server, try once here."""
    if part.conversation.agent.kind != KIND:
        return
    if not server_loop.call_soon(WebhookSender.wake_running):
        async_to_sync(send_once)(part.pk)  # the first server to start sends the retries


@dataclass(frozen=True)
class Claimed:
    """A delivery leased for one attempt, with all it takes to send it."""

    pk: int
    lease_token: str
    attempts: int  # made before this one
    url: str
    webhook_id: str
    body: bytes
    secret: str


def claim_due(limit: int, *, part_id: int | None = None) -> tuple[list[Claimed], datetime | None]:
    """Lease up to `limit` due deliveries, committed before any is sent; return them and when
    the next pending delivery falls due (a lease that runs out included)."""
    now = timezone.now()
    pending = WebhookDelivery.objects.filter(status=WebhookDelivery.Status.PENDING)
    due = pending.filter(next_attempt_at__lte=now)
    if part_id is not None:
        due = due.filter(part_id=part_id)
    claimed = []
    # Looked for outside a transaction first: on SQLite opening one takes the write lock.
    if limit > 0 and due.exists():
        with transaction.atomic():
            locked = due.select_for_update(skip_locked=True).order_by("next_attempt_at", "pk")
            ids = list(locked.values_list("pk", flat=True)[:limit])
            token = uuid.uuid4().hex
            lease_end = now + timedelta(seconds=LEASE_SECONDS)
            # Conditional, like a turn's claim: on SQLite nothing is locked, writes are serialized.
            due.filter(pk__in=ids).update(lease_token=token, next_attempt_at=lease_end)
            leased = WebhookDelivery.objects.filter(pk__in=ids, lease_token=token)
            claimed = [_claimed(row) for row in leased.select_related("token", "part")]
    next_due = pending.aggregate(next_due=Min("next_attempt_at"))["next_due"]
    return claimed, next_due


def _claimed(delivery: WebhookDelivery) -> Claimed:
    part = delivery.part
    body = {
        "requestId": part.pk,
        "conversationId": part.conversation_id,
        "state": part.state,
        "envelope": part.response,
    }
    return Claimed(
        pk=delivery.pk,
        lease_token=delivery.lease_token,
        attempts=delivery.attempts,
        url=delivery.url,
        webhook_id=str(delivery.webhook_id),
        body=json.dumps(body).encode(),
        secret=signing_secret(delivery.token),
    )


async def post(client: httpx.AsyncClient, delivery: Claimed) -> tuple[int | None, str]:
    """Make one attempt; return the receiver's status code, or None and what went wrong."""
    timestamp = str(int(time.time()))
    headers = {
        "Content-Type": "application/json",
        "Webhook-Id": delivery.webhook_id,
        "Webhook-Timestamp": timestamp,
        "Webhook-Signature": signature(delivery.secret, timestamp, delivery.body),
    }
    try:
        async with asyncio.timeout(TIMEOUT_SECONDS):
            await asyncio.to_thread(check_url, delivery.url)  # DNS can block: keep it off the loop
            response = await client.post(delivery.url, content=delivery.body, headers=headers)
    except TimeoutError:
        return None, f"No answer within {TIMEOUT_SECONDS} seconds."
    except (UnsafeURLError, httpx.HTTPError) as error:
        return None, (str(error) or type(error).__name__)[:300]
    return response.status_code, ""


def record_attempt(delivery: Claimed, status_code: int | None, error: str) -> bool:
    """Write the attempt and the delivery's new state in one transaction, if the lease is still
    this attempt's; return whether it was."""
    attempts = delivery.attempts + 1
    backoff = settings.API_WEBHOOK_BACKOFF
    change: dict = {"attempts": attempts, "lease_token": ""}
    if status_code is not None and 200 <= status_code < 300:
        change["status"] = WebhookDelivery.Status.DELIVERED
    elif attempts > len(backoff):
        change["status"] = WebhookDelivery.Status.FAILED
    else:
        change["next_attempt_at"] = timezone.now() + timedelta(seconds=backoff[attempts - 1])
    with transaction.atomic():
        mine = WebhookDelivery.objects.filter(pk=delivery.pk, lease_token=delivery.lease_token)
        if not mine.update(**change):
            return False
        DeliveryAttempt.objects.create(
            delivery_id=delivery.pk, status_code=status_code, error=error
        )
    return True


async def attempt(client: httpx.AsyncClient, delivery: Claimed) -> None:
    """Send a leased delivery once and write down how it went."""
    status_code, error = await post(client, delivery)
    if not await in_db(record_attempt)(delivery, status_code, error):
        # Only if writing it down outlasted the lease: the next holder sends it again.
        logger.warning(
            "webhook delivery %s lost its lease before its attempt was recorded", delivery.pk
        )


async def send_once(part_id: int) -> None:
    """Try each due delivery of one settled question once (outside a server)."""
    claimed, _ = await in_db(claim_due)(IN_FLIGHT, part_id=part_id)
    async with httpx.AsyncClient(follow_redirects=False, timeout=TIMEOUT_SECONDS) as client:
        await asyncio.gather(*(attempt(client, delivery) for delivery in claimed))


class WebhookSender:
    """Claim due deliveries and send up to IN_FLIGHT of them at once on the running loop."""

    running: "WebhookSender | None" = None  # this web process's, once its server has started

    def __init__(self):
        self.in_flight: set[asyncio.Task] = set()
        self._wake = asyncio.Event()

    @classmethod
    def wake_running(cls) -> None:
        if cls.running is not None:
            cls.running._wake.set()

    async def run(self) -> None:
        """Send deliveries as they fall due, until cancelled."""
        async with httpx.AsyncClient(follow_redirects=False, timeout=TIMEOUT_SECONDS) as client:
            while True:
                self._wake.clear()
                free = IN_FLIGHT - len(self.in_flight)
                try:
                    claimed, next_due = await in_db(claim_due)(free)
                except Exception:
                    logger.exception("claiming webhook deliveries failed; trying again shortly")
                    claimed, next_due = [], None
                for delivery in claimed:
                    task = asyncio.create_task(self._send(client, delivery))
                    self.in_flight.add(task)
                wait = settings.RECOVERY_SWEEP_SECONDS
                if next_due is not None and len(self.in_flight) < IN_FLIGHT:
                    until_due = (next_due - timezone.now()).total_seconds()
                    wait = min(wait, max(SOONEST_SECONDS, until_due))
                try:
                    async with asyncio.timeout(wait):
                        await self._wake.wait()  # a settlement here, or a send that finished
                except TimeoutError:
                    pass

    async def _send(self, client: httpx.AsyncClient, delivery: Claimed) -> None:
        try:
            await attempt(client, delivery)
        except Exception:
            # A lost database, say: the lease runs out and the attempt goes out again.
            logger.exception("sending webhook delivery %s failed", delivery.pk)
        finally:
            self.in_flight.discard(asyncio.current_task())
            self._wake.set()


async def send_deliveries() -> None:
    """Run this web process's webhook sender until the server stops (start-up work)."""
    sender = WebhookSender()
    WebhookSender.running = sender
    try:
        await sender.run()
    finally:
        WebhookSender.running = None

"""Webhooks: when an external agent's question settles, POST the envelope to the token's URL.

Delivery is at-least-once. The delivery row is written in the settlement's own transaction,
and from then on the WebhookDelivery table is the queue of the webhooks job
(`playground.jobs`, registered in `playground.api.apps`). It leases due deliveries (a token, and
`next_attempt_at` moved LEASE_SECONDS on) in a claim committed before the POST, so one
process sends each attempt. The attempt row and the delivery's new state (delivered, the next
retry, or failed) commit together in one transaction, and only while the lease is still its
sender's. The settlement wakes the job with its commit.

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
from dataclasses import dataclass
from datetime import datetime, timedelta

import httpx
from asgiref.sync import async_to_sync
from django.conf import settings
from django.db import transaction
from django.db.models import Min
from django.utils import timezone

from elicitation.models import Part
from playground import jobs
from playground.api.external import KIND
from playground.api.models import DeliveryAttempt, ExternalConversation, WebhookDelivery
from playground.api.tokens import signing_secret
from playground.api.waiting import in_db
from playground.connections import addresses
from playground.connections.addresses import UnsafeURLError
from playground.jobs.claim import claim

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
        jobs.wake_on_commit("webhooks")


def deliver_soon(sender, part: Part, **kwargs) -> None:
    """After the commit: with no job runner at all (a command, a test driving views), try once
    here; the runners were woken with the commit."""
    if part.conversation.agent.kind != KIND or settings.JOBS_RUN_IN == "workers":
        return
    if not jobs.runs_here("webhooks"):
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
    token, ids = claim(
        due,
        order_by=("next_attempt_at", "pk"),
        limit=limit,
        token_field="lease_token",
        next_attempt_at=now + timedelta(seconds=LEASE_SECONDS),
    )
    leased = WebhookDelivery.objects.filter(pk__in=ids, lease_token=token)
    claimed = [_claimed(row) for row in leased.select_related("token", "part")] if ids else []
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
    """The webhooks job: claim due deliveries and send up to IN_FLIGHT of them at once."""

    def __init__(self):
        self.in_flight: set[asyncio.Task] = set()
        self.client = httpx.AsyncClient(follow_redirects=False, timeout=TIMEOUT_SECONDS)

    async def step(self) -> float | None:
        claimed, next_due = await in_db(claim_due)(IN_FLIGHT - len(self.in_flight))
        for delivery in claimed:
            task = asyncio.create_task(self._send(delivery))
            self.in_flight.add(task)
        if next_due is None or len(self.in_flight) >= IN_FLIGHT:
            return None  # a send that finishes wakes the job
        return max(SOONEST_SECONDS, (next_due - timezone.now()).total_seconds())

    async def _send(self, delivery: Claimed) -> None:
        try:
            await attempt(self.client, delivery)
        except Exception:
            # A lost database, say: the lease runs out and the attempt goes out again.
            logger.exception("sending webhook delivery %s failed", delivery.pk)
        finally:
            self.in_flight.discard(asyncio.current_task())
            jobs.wake("webhooks")

    async def drain(self, grace: float) -> None:
        if self.in_flight:
            await asyncio.wait(self.in_flight, timeout=grace)
        await self.client.aclose()  # what is still in flight goes out again once its lease ends


def job(**options) -> jobs.Job:
    sender = WebhookSender()
    return jobs.Job("webhooks", sender.step, drain=sender.drain)

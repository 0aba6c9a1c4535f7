"""The loop that sends due notifications, on a web process's event loop or in
`manage.py notify_worker`: claim (`notify.queue`), send, write down, wait for the next due.

Nothing here holds a thread while it waits. The database work and the SMTP conversation run
on pooled threads (Django's email backends are synchronous), each send bounded by
EMAIL_TIMEOUT, so a slow or dead SMTP server delays only its own mail, never a question or an
answer. Browser notifications go to the person's open tabs through the channel layer.
"""

import asyncio
import logging
from functools import wraps

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connections
from django.utils import timezone

from notify import presence, queue

logger = logging.getLogger(__name__)

PEOPLE_AT_ONCE = 20


def person_group(user_id: int) -> str:
    """Return the channel-layer group of every open tab of a person."""
    return f"person-{user_id}"


def _in_db(fn):
    """Run a database function on a pooled thread, closing its connection when it returns."""

    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        finally:
            connections.close_all()

    return wraps(fn)(sync_to_async(run, thread_sensitive=False))


def _send_email(message) -> None:
    message.send(fail_silently=False)


async def push_browser(user_id: int, notification: dict) -> bool:
    """Ask the person's open tabs to show a browser notification; best effort."""
    try:
        await get_channel_layer().group_send(
            person_group(user_id), {"type": "notify.browser", **notification}
        )
    except Exception:
        logger.warning("browser notification to user %s failed", user_id, exc_info=True)
        return False
    return True


async def deliver(batch: queue.Batch, now) -> None:
    """Send one leased batch and write down how it went."""
    await _in_db(queue.plan)(batch, now)
    browser_sent = batch.browser is not None and await push_browser(batch.user_id, batch.browser)
    error = ""
    if batch.email is not None:
        try:
            await sync_to_async(_send_email, thread_sensitive=False)(batch.email)
        except Exception as failure:  # SMTP down, refused, timed out: try again later
            error = f"{type(failure).__name__}: {failure}"
            logger.warning("notification email to user %s failed: %s", batch.user_id, error)
    if not await _in_db(queue.record)(batch, now, error, browser_sent):
        logger.warning("notification batch of user %s lost its lease", batch.user_id)


async def send_due(now=None) -> int:
    """Claim and send what is due at `now` (default: the clock); return how many people."""
    now = now or timezone.now()
    batches, _ = await _in_db(queue.claim_due)(now, PEOPLE_AT_ONCE)
    await asyncio.gather(*(deliver(batch, now) for batch in batches))
    return len(batches)


async def run() -> None:
    """Send notifications as they fall due, until cancelled (start-up work of every web
    process, and the whole of `notify_worker`)."""
    last_refresh = 0.0
    loop = asyncio.get_running_loop()
    while True:
        next_due = None
        try:
            if loop.time() - last_refresh >= settings.TAB_REFRESH_SECONDS:
                await _in_db(presence.refresh_own_tabs)()
                last_refresh = loop.time()
            batches, next_due = await _in_db(queue.claim_due)(timezone.now(), PEOPLE_AT_ONCE)
            await asyncio.gather(*(_deliver_logged(batch) for batch in batches))
        except Exception:
            logger.exception("sending notifications failed; trying again shortly")
        wait = min(settings.RECOVERY_SWEEP_SECONDS, settings.TAB_REFRESH_SECONDS)
        if next_due is not None:
            wait = min(wait, max(0.05, (next_due - timezone.now()).total_seconds()))
        await asyncio.sleep(wait)


async def _deliver_logged(batch: queue.Batch) -> None:
    try:
        await deliver(batch, timezone.now())
    except Exception:
        # A lost database, say: the lease runs out and the batch goes out again.
        logger.exception("sending notifications to user %s failed", batch.user_id)

"""The notices job (`playground.jobs`): claim due notices (`playground.notify.queue`), send, write
down.

Nothing here holds a thread while it waits. The database work and the SMTP conversation run
on pooled threads (Django's email backends are synchronous), each send bounded by
EMAIL_TIMEOUT, so a slow or dead SMTP server delays only mail, never a question or an answer.
A round's people are planned in one hop to the database and written down in one more, and
their mails go over one SMTP connection: a hop, a database connection and an SMTP handshake
for every person made a burst of questions late and slowed every answer while it went out.
Browser notifications go to the person's open tabs through the channel layer.
"""

import asyncio
import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from functools import partial

from channels.layers import get_channel_layer
from django.conf import settings
from django.core.mail import mailers
from django.utils import timezone

from elicitation.database_hop import in_db
from playground.notify import presence, queue

logger = logging.getLogger(__name__)

PEOPLE_AT_ONCE = 100  # a round: one claim, two hops, SMTP_CONNECTIONS connections
# A round's mails go over this many SMTP connections at once, their share each: one after the
# other over one, a burst of people is told too late (bench/notify.py).
SMTP_CONNECTIONS = 4
ROUNDS_AT_ONCE = 2  # one round's mails go out while the next is claimed and planned
# Threads of their own for the SMTP conversations: the loop's default pool is six threads on
# two cores, shared with everything else the process hands off.
_smtp_threads = ThreadPoolExecutor(SMTP_CONNECTIONS * ROUNDS_AT_ONCE, "notify-smtp")


def person_group(user_id: int) -> str:
    """Return the channel-layer group of every open tab of a person."""
    return f"person-{user_id}"


# The sender's database work, one hop at a time even with two rounds under way: it takes one
# pooled connection, never two of those the requests wait for.
_in_db = partial(in_db, one_at_a_time=threading.Lock())


def _send_emails(drafts: list) -> list[str]:
    """Compose and send the mails over one SMTP connection; return each one's error (""
    when sent).

    A send that fails closes the connection and the next one opens another; a server that
    cannot be reached fails the rest without trying each (they are tried again later).
    """
    errors: list[str] = []
    connection = None
    for draft in drafts:
        if connection is None:
            try:
                connection = mailers.default
                connection.open()
            except Exception as failure:  # SMTP down, refused, timed out
                return errors + [_error(failure)] * (len(drafts) - len(errors))
        try:
            connection.send_messages([draft()])
            errors.append("")
        except Exception as failure:
            errors.append(_error(failure))
            connection = _closed(connection)
    _closed(connection)
    return errors


def _error(failure: Exception) -> str:
    return f"{type(failure).__name__}: {failure}"


def _closed(connection) -> None:
    if connection is not None:
        try:
            connection.close()
        except Exception:
            pass  # broken already: nothing more goes over it


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


async def deliver(batches: list[queue.Batch], now) -> None:
    """Send leased batches and write down how each went."""
    planned = await _in_db(queue.plan_all)(batches, now)
    shown = {
        batch.user_id: await push_browser(batch.user_id, batch.browser)
        for batch in planned
        if batch.browser is not None
    }
    mailed = [batch for batch in planned if batch.email is not None]
    size = -(-len(mailed) // SMTP_CONNECTIONS)  # each connection's share, rounded up
    shares = [mailed[start : start + size] for start in range(0, len(mailed), size or 1)]
    loop = asyncio.get_running_loop()
    sent = await asyncio.gather(
        *(
            loop.run_in_executor(_smtp_threads, _send_emails, [b.email for b in share])
            for share in shares
        )
    )
    errors = {
        batch.user_id: error
        for share, share_sent in zip(shares, sent, strict=True)
        for batch, error in zip(share, share_sent, strict=True)
    }
    for user_id, error in errors.items():
        if error:
            logger.warning("notification email to user %s failed: %s", user_id, error)
    await _in_db(queue.record_all)(planned, now, errors, shown)


async def send_due(now=None) -> int:
    """Claim and send what is due at `now` (default: the clock); return how many people."""
    now = now or timezone.now()
    batches, _ = await _in_db(queue.claim_due)(now, PEOPLE_AT_ONCE)
    await deliver(batches, now)
    return len(batches)


class NoticeSender:
    """The notices job: up to ROUNDS_AT_ONCE rounds under way, the next claimed and planned
    while the last one's mails go out."""

    def __init__(self):
        self.rounds: set[asyncio.Task] = set()

    async def step(self) -> float | None:
        now = timezone.now()
        batches, next_due = await _in_db(queue.claim_due)(now, PEOPLE_AT_ONCE)
        if batches:
            self.rounds.add(round_ := asyncio.create_task(_deliver_round(batches, now)))
            round_.add_done_callback(self.rounds.discard)
        if len(self.rounds) >= ROUNDS_AT_ONCE:
            await asyncio.wait(self.rounds, return_when=asyncio.FIRST_COMPLETED)
            return 0
        if next_due is None:
            return None
        return max(0.05, (next_due - timezone.now()).total_seconds())

    async def drain(self, grace: float) -> None:
        for round_ in self.rounds:
            round_.cancel()  # its leases run out, and another sender sends it


async def _deliver_round(batches: list[queue.Batch], now) -> None:
    try:
        await deliver(batches, now)
    except Exception:
        logger.exception("sending notifications failed; their leases run out, then again")


async def refresh_tabs() -> None:
    """Show this process's open tabs are still open, until cancelled (every web process)."""
    while True:
        try:
            await _in_db(presence.refresh_own_tabs)()
        except Exception:
            logger.exception("refreshing the open tabs failed; trying again shortly")
        await asyncio.sleep(settings.TAB_REFRESH_SECONDS)

"""A conversation's wire keeps its newest messages (`WIRE_MESSAGES_KEPT`), the older ones deleted
as new ones are logged, another conversation's untouched; staff read it in the admin, secrets
removed as in the Wire panel, and can change nothing there."""

import asyncio
import concurrent.futures
import threading

import pytest

from playground.runs import wire
from playground.runs.models import Conversation, WireMessage
from playground.runs.wire import WireLog
from tests.support.admin_support import make_staff
from tests.support.live_server import wait_for
from tests.support.runtime_helpers import start

pytestmark = pytest.mark.django_db(transaction=True)

SECRET = "Bearer wire-admin-secret-8c41"


def bodies(conversation: Conversation) -> list[str]:
    rows = WireMessage.objects.filter(conversation=conversation).order_by("id")
    return list(rows.values_list("body", flat=True))


async def log(conversation: Conversation, texts: list[str], secrets=(), stored_as="") -> None:
    """Log `texts` as a connection does, one at a time, and wait until the last is stored
    (`stored_as`: as it reads with its secrets removed)."""
    wire = WireLog(conversation.pk, "MCP: Test", list(secrets))
    for text in texts:
        wire.event(text)
        await asyncio.sleep(0)  # the connection goes on between messages
    stored = WireMessage.objects.filter(conversation=conversation, body=stored_as or texts[-1])
    await asyncio.to_thread(wait_for, stored.exists)


async def test_a_conversation_keeps_its_newest_messages(settings, alice):
    settings.WIRE_MESSAGES_KEPT = 20
    mine, other = await asyncio.to_thread(
        lambda: (start(alice, "schema-tester"), start(alice, "schema-tester"))
    )
    await log(other, ["other 0", "other 1"])
    await log(mine, [f"message {n}" for n in range(50)])

    kept = await asyncio.to_thread(bodies, mine)
    # The newest 20, and at most a tenth more not yet trimmed.
    assert kept[-20:] == [f"message {n}" for n in range(30, 50)]
    assert len(kept) <= 22
    assert await asyncio.to_thread(bodies, other) == ["other 0", "other 1"]


async def test_the_admin_shows_the_wire_with_secrets_removed_and_changes_nothing(client, alice):
    conversation = await asyncio.to_thread(start, alice, "schema-tester")
    text, stored_as = f"Connecting with {SECRET}.", "Connecting with [redacted]."
    await log(conversation, [text], secrets=[SECRET], stored_as=stored_as)

    def pages() -> tuple[str, str, int, int]:
        client.force_login(make_staff("root", superuser=True))
        message = WireMessage.objects.get(conversation=conversation)
        listing = client.get("/admin/playground/wiremessage/").content.decode()
        url = f"/admin/playground/wiremessage/{message.pk}/change/"
        page = client.get(url).content.decode()
        changed = client.post(url, {"body": "changed"}).status_code
        added = client.get("/admin/playground/wiremessage/add/").status_code
        return listing, page, changed, added

    listing, page, changed, added = await asyncio.to_thread(pages)
    assert "MCP: Test" in listing
    assert stored_as in page
    assert "wire-admin-secret" not in listing + page
    assert changed == 403 and added == 403


def test_a_message_logged_as_the_loop_closes_is_written_while_the_writers_are_busy(alice):
    """A turn run outside a server (a management command, a test) ends its event loop when it
    ends, cancelling the log's writing; the last message once went with it when no writer
    thread had started its batch yet (test_agui_wire failed under load)."""
    conversation = start(alice, "schema-tester")
    busy, release = threading.Event(), threading.Event()

    def occupy() -> None:
        busy.set()
        release.wait(30)

    blockers = [wire._WRITER.submit(occupy) for _ in range(wire._WRITER._max_workers)]
    busy.wait(5)

    async def run_that_ends() -> None:
        log = WireLog(conversation.pk, "MCP: Test")
        log.event("The last message")
        await asyncio.sleep(0)  # its writing starts, and waits for a writer thread
        threading.Timer(0.2, release.set).start()  # the writers free up as the loop closes

    asyncio.run(run_that_ends())
    concurrent.futures.wait(blockers, timeout=30)
    assert bodies(conversation) == ["The last message"]

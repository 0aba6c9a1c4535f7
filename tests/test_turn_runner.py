"""The runner inside the server (playground.tasks.TurnRunner): turns it had no slot for run as
soon as one frees, not at its next poll."""

import asyncio

import pytest
from asgiref.sync import sync_to_async

from playground.models import Turn
from playground.tasks import TurnRunner
from tests.live_server import wait_for
from tests.runtime_helpers import start

pytestmark = pytest.mark.django_db(transaction=True)


async def test_a_turn_left_for_lack_of_a_slot_runs_as_soon_as_one_frees(alice):
    # As the server makes it, but polling and sweeping once a minute.
    runner = TurnRunner(concurrency=1, poll_seconds=60, sweep=lambda: None, sweep_seconds=60)
    for _ in range(2):
        conversation = await sync_to_async(start)(alice, "test-greeter")
        await Turn.objects.acreate(conversation=conversation, index=0, text="hi")
    running = asyncio.create_task(runner.run())
    try:
        # Each asks its question and waits: the first frees the only slot for the second.
        both_wait = Turn.objects.filter(status=Turn.Status.WAITING).count
        # (Polled off the thread the runner queries on.)
        await sync_to_async(wait_for, thread_sensitive=False)(lambda: both_wait() == 2, 15)
    finally:
        runner.stopping.set()
        await running

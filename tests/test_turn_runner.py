"""The turns job (playground.runs.tasks.TurnRunner): turns it had no slot for run as soon as one
frees, not at its next poll."""

import asyncio

import pytest
from asgiref.sync import sync_to_async

from playground import jobs
from playground.runs.models import Turn
from playground.runs.tasks import TurnRunner
from tests.support.live_server import wait_for
from tests.support.runtime_helpers import start

pytestmark = pytest.mark.django_db(transaction=True)


async def test_a_turn_left_for_lack_of_a_slot_runs_as_soon_as_one_frees(alice, settings):
    settings.RECOVERY_SWEEP_SECONDS = 60  # as the server runs it, but polling once a minute
    runner = TurnRunner(concurrency=1, poll_seconds=60)
    for _ in range(2):
        conversation = await sync_to_async(start)(alice, "test-greeter")
        await Turn.objects.acreate(conversation=conversation, index=0, text="hi")
    stopping = asyncio.Event()
    running = asyncio.create_task(
        jobs.run([jobs.Job("turns", runner.step, drain=runner.drain)], stopping=stopping)
    )
    try:
        # Each asks its question and waits: the first frees the only slot for the second.
        both_wait = Turn.objects.filter(status=Turn.Status.WAITING).count
        # (Polled off the thread the runner queries on.)
        await sync_to_async(wait_for, thread_sensitive=False)(lambda: both_wait() == 2, 15)
    finally:
        stopping.set()
        await running

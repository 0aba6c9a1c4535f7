"""The embedded default: agent turns run inside the server process, on its event loop.

`start()` is the server's start-up work: the start-up recovery pass (this process is the only
runner, so every turn still marked running was interrupted), then the turn runner, which claims
queued turns up to EMBEDDED_CONCURRENCY at once and sweeps for interrupted turns every
RECOVERY_SWEEP_SECONDS, like an `agent_worker` does in scale-out; and the schedule firer,
which starts the runs whose slots fall due (playground/scheduler.py).
"""

import asyncio
from functools import partial

from asgiref.sync import sync_to_async
from django.conf import settings

from playground import recovery
from playground.scheduler import ScheduleFirer
from playground.tasks import TurnRunner


async def start() -> None:
    """Recover what a crash left behind, then run turns until the server stops."""
    if settings.TASK_BACKEND != "inprocess":
        return  # scale-out: `agent_worker` processes run the turns
    await sync_to_async(partial(recovery.start_up, only_runner=True))()
    runner = TurnRunner(
        concurrency=settings.EMBEDDED_CONCURRENCY,
        poll_seconds=settings.RECOVERY_SWEEP_SECONDS,
        sweep=recovery.sweep,
        sweep_seconds=settings.RECOVERY_SWEEP_SECONDS,
    )
    TurnRunner.embedded = runner
    firer = asyncio.create_task(ScheduleFirer().run())
    try:
        await runner.run()
    finally:
        firer.cancel()
        TurnRunner.embedded = None

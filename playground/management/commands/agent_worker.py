"""Run agent turns in scale-out: claim queued turns, many at once, and sweep for stranded ones;
start the runs of schedules whose slots fall due (playground/scheduler.py), each slot once
across all workers.

Each worker runs up to --concurrency turns on one event loop (agents mostly wait on models,
HTTP and people, so one process serves many). SIGTERM or SIGINT stops claiming, gives running
turns --grace seconds to finish, and leaves the rest queued for another worker.

On PostgreSQL the worker LISTENs for the NOTIFY sent as turns are queued (queue_wakeup):
queued turns start at once, and the queue is polled every 5 s only in case a notification was
lost. Elsewhere it polls every 0.25 s.
"""

import asyncio
import signal

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from playground import queue_wakeup, recovery
from playground.scheduler import ScheduleFirer
from playground.tasks import TurnRunner


class Command(BaseCommand):
    help = "Run agent turns queued in the database, and pick up the turns a dead worker left."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--concurrency", type=int, default=20, help="Turns run at once (default 20)."
        )
        parser.add_argument(
            "--interval",
            type=float,
            help="Seconds between polls of the queue (default: 5 on PostgreSQL, which wakes the "
            "worker when a turn is queued; 0.25 elsewhere).",
        )
        parser.add_argument(
            "--grace", type=float, default=20.0, help="Seconds running turns get to finish."
        )

    def handle(
        self, *args, concurrency: int, interval: float | None, grace: float, **options
    ) -> None:
        if settings.TASK_BACKEND != "database":
            raise CommandError(
                "agent_worker runs turns queued in the database: set TASK_BACKEND=database "
                "(and DATABASE_URL, REDIS_URL) for the web processes and the workers alike."
            )
        if concurrency < 1:
            raise CommandError("--concurrency must be at least 1.")
        listen = queue_wakeup.listen_params() if queue_wakeup.available() else None
        if interval is None:
            interval = 0.25 if listen is None else 5.0
        asyncio.run(self._work(concurrency, interval, grace, listen))

    async def _work(
        self, concurrency: int, interval: float, grace: float, listen: dict | None
    ) -> None:
        await sync_to_async(recovery.start_up)()  # other workers may run: only stale turns
        runner = TurnRunner(
            concurrency=concurrency,
            poll_seconds=interval,
            sweep=recovery.sweep,
            sweep_seconds=settings.RECOVERY_SWEEP_SECONDS,
        )
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, runner.stopping.set)
        wakes = {
            queue_wakeup.CHANNEL: runner.wake,
            queue_wakeup.SCHEDULE_CHANGED: ScheduleFirer.wake_running,
        }
        listener = listen and asyncio.create_task(queue_wakeup.listen(wakes, listen))
        firer = asyncio.create_task(ScheduleFirer().run())
        self.stdout.write(f"agent_worker: running up to {concurrency} turns at once")
        await runner.run()
        firer.cancel()
        if listener:
            listener.cancel()
        await runner.drain(grace)
        self.stdout.write("agent_worker: stopped")

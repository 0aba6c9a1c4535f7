"""Run the jobs in scale-out: turns, schedule slots, notices, webhook deliveries, escalations
and unsent uploads, each claimed once across all workers.

Each worker runs up to --concurrency turns on one event loop (agents mostly wait on models,
HTTP and people, so one process serves many). SIGTERM or SIGINT stops claiming, gives running
turns --grace seconds to finish, and leaves the rest queued for another worker.
"""

import asyncio
import signal

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from playground.jobs.runner import JOBS, Job, build, run


class Command(BaseCommand):
    help = "Run the work that falls due later (turns, schedules, notices, webhooks...)."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--only",
            default="",
            help="Comma-separated jobs to run (default: all): " + ", ".join(JOBS) + ".",
        )
        parser.add_argument(
            "--concurrency", type=int, default=20, help="Turns run at once (default 20)."
        )
        parser.add_argument(
            "--grace", type=float, default=20.0, help="Seconds running turns get to finish."
        )

    def handle(self, *args, only: str, concurrency: int, grace: float, **options) -> None:
        if settings.JOBS_RUN_IN != "workers":
            raise CommandError(
                "worker runs the jobs of a scale-out deployment: set JOBS_RUN_IN=workers "
                "(and DATABASE_URL, REDIS_URL) for the web processes and the workers alike."
            )
        if concurrency < 1:
            raise CommandError("--concurrency must be at least 1.")
        names = [name.strip() for name in only.split(",") if name.strip()]
        if unknown := [name for name in names if name not in JOBS]:
            raise CommandError(
                f"No job named {', '.join(unknown)}; the jobs are: {', '.join(JOBS)}."
            )
        asyncio.run(self._work(build(names, concurrency=concurrency), grace))

    async def _work(self, running: list[Job], grace: float) -> None:
        stopping = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stopping.set)
        work = asyncio.create_task(run(running, stopping=stopping, grace=grace))
        self.stdout.write(f"worker: running {', '.join(job.name for job in running)}")
        self.stdout.flush()
        await work
        self.stdout.write("worker: stopped")

"""Send due notifications until stopped (web processes do this too; run more for capacity)."""

import asyncio
import signal

from django.core.management.base import BaseCommand

from notify import sender


class Command(BaseCommand):
    help = "Send notification emails and browser notifications as they fall due."

    def handle(self, *args, **options) -> None:
        asyncio.run(self._run())

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        work = asyncio.create_task(sender.run())
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, work.cancel)
        self.stdout.write("notify_worker: running", ending="\n")
        self.stdout.flush()
        try:
            await work
        except asyncio.CancelledError:
            pass

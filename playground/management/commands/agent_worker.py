"""Run agent turns in scale-out: django-tasks-db's worker, plus the recovery sweep beside it.

The sweep runs in a thread so it keeps going while the worker is busy with a long turn: with
every worker busy, a turn whose worker died would otherwise wait for one to come free.
"""

import logging
import os
import threading
import time

from django.conf import settings
from django.core.management.base import CommandError
from django.db import connection
from django.utils.autoreload import DJANGO_AUTORELOAD_ENV
from django_tasks_db.management.commands import db_worker

from playground import recovery

logger = logging.getLogger("playground.recovery")


class Command(db_worker.Command):
    help = (
        "Run agent turns from the database queue (django-tasks-db's db_worker), and every "
        "RECOVERY_SWEEP_SECONDS pick up the turns a dead worker left behind."
    )

    def add_arguments(self, parser) -> None:
        super().add_arguments(parser)
        # A resumed run waits for the next poll: 1 s (db_worker's default) is felt in the chat.
        parser.set_defaults(interval=0.25)

    def handle(self, *args, **options) -> None:
        if settings.TASK_BACKEND != "database":
            raise CommandError(
                "agent_worker runs turns queued in the database: set TASK_BACKEND=database "
                "(and DATABASE_URL, REDIS_URL) for the web processes and the workers alike."
            )
        # With --reload the parent only watches files; its child runs the worker.
        if not options["reload"] or os.environ.get(DJANGO_AUTORELOAD_ENV) == "true":
            sweeper = threading.Thread(target=_sweep_forever, name="recovery-sweep", daemon=True)
            sweeper.start()
        super().handle(*args, **options)


def _sweep_forever() -> None:
    while True:  # a daemon thread: it ends with the process
        time.sleep(settings.RECOVERY_SWEEP_SECONDS)
        try:
            recovery.sweep()
        except Exception:
            logger.exception("recovery sweep failed; trying again next time")
        finally:
            connection.close()  # this thread's own connection; a fresh one next time

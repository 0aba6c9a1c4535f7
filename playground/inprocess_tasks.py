"""A `django.tasks` backend for the embedded default: tasks run inside the server process.

Inside a server, a task is scheduled on the server's event loop and the request returns at
once. Outside one (management commands, tests driving views directly) it runs to completion
before `enqueue` returns, like Django's ImmediateBackend. No second process, no Redis.
"""

from django.tasks.backends.immediate import ImmediateBackend
from django.tasks.base import TaskResult, TaskResultStatus
from django.utils import timezone
from django.utils.crypto import get_random_string

from playground import server_loop


class InProcessBackend(ImmediateBackend):
    def enqueue(self, task, args, kwargs):
        self.validate_task(task)
        result = TaskResult(
            task=task,
            id=get_random_string(32),
            status=TaskResultStatus.READY,
            enqueued_at=None,
            started_at=None,
            last_attempted_at=None,
            finished_at=None,
            args=args,
            kwargs=kwargs,
            backend=self.alias,
            errors=[],
            worker_ids=[],
        )
        if server_loop.get() is None:
            self._execute_task(result)
        else:
            object.__setattr__(result, "enqueued_at", timezone.now())
            server_loop.submit(task.acall(*args, **kwargs))
        return result

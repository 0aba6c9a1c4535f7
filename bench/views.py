"""Bench-only endpoints: the baseline POST and a census of what the server process holds."""

import asyncio
import gc
import inspect
import threading
import tracemalloc
from collections import Counter

import psutil
from django.contrib.admin.models import ADDITION, LogEntry
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.http import require_POST

from elicitation.models import Part
from playground import server_loop
from playground.models import Turn


@login_required
@require_POST
def save_row(request: HttpRequest) -> HttpResponse:
    """The baseline for settle_throughput: a bare POST that saves one row."""
    LogEntry.objects.create(user=request.user, action_flag=ADDITION, object_repr="bench")
    return HttpResponse("saved")


def census(request: HttpRequest) -> JsonResponse:
    """Return what this process holds: waiting runs would show up as tasks or coroutines."""
    gc.collect()
    objects = gc.get_objects()
    coroutines = [obj for obj in objects if inspect.iscoroutine(obj)]
    loop = server_loop.get()
    return JsonResponse(
        {
            "rss_mb": psutil.Process().memory_info().rss / 2**20,
            "threads": threading.active_count(),
            "loop_tasks": len(asyncio.all_tasks(loop)) if loop else 0,
            # Suspended ones: a finished coroutine is only referenced until daphne's next pass
            # over its connections (every 10 s) drops the request that ran it.
            "coroutines": len(waiting := [c for c in coroutines if not _finished(c)]),
            "coroutine_kinds": Counter(c.__qualname__ for c in waiting).most_common(6),
            "coroutines_finished": len(coroutines) - len(waiting),
            "parts_in_memory": sum(1 for obj in objects if isinstance(obj, Part)),
            "turns_in_memory": sum(1 for obj in objects if isinstance(obj, Turn)),
            "gc_objects": len(objects),
            "allocated_by": _top_allocations() if request.GET.get("allocations") else [],
        }
    )


def _finished(coroutine) -> bool:
    return inspect.getcoroutinestate(coroutine) == inspect.CORO_CLOSED


def _top_allocations() -> list[str]:
    """Where live memory was allocated: `?allocations=1`, server run with PYTHONTRACEMALLOC=N."""
    if not tracemalloc.is_tracing():
        return []
    stats = tracemalloc.take_snapshot().statistics("traceback")
    return [f"{s.size / 2**20:.1f} MB: " + " < ".join(map(str, s.traceback)) for s in stats[:8]]

"""Bench-only endpoints: the baseline POST, the durable floor of an answer, and a census of
what the server process holds."""

import asyncio
import gc
import inspect
import threading
import time
import tracemalloc
from collections import Counter
from functools import partial

import psutil
from django.conf import settings
from django.contrib.admin.models import ADDITION, LogEntry
from django.contrib.auth.decorators import login_required
from django.db import connection, transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.template import engines
from django.utils import timezone
from django.views.decorators.http import require_POST

from elicitation.models import Part
from playground.runs.models import Turn
from playground.server import server_loop

# answer_latency's floor in scale-out: the view notifies here with the commit, and a waiter
# in another process (the bench's) LISTENs, as agent workers do for queued turns.
FLOOR_CHANNEL = "bench_answer_floor"


@login_required
@require_POST
def save_row(request: HttpRequest) -> HttpResponse:
    """The baseline for settle_throughput: a bare POST that saves one row."""
    LogEntry.objects.create(user=request.user, action_flag=ADDITION, object_repr="bench")
    return HttpResponse("saved")


# A bare page of the conversation's pending questions, each a form of the same fields, posted
# by htmx as the chat's forms are (the click is timed in the page, the same way for both).
FLOOR_PAGE = engines["django"].from_string(
    """{% load django_htmx %}<!doctype html><html lang="en"><head><title>floor</title>
{% htmx_script %}</head><body hx-headers='{"X-CSRFToken": "{{ csrf_token }}"}'>
{% for part in parts %}<form hx-post="/bench/answer-floor/{{ part.pk }}" hx-swap="outerHTML">
<p>{{ part.payload.message }}</p>
<label><input type="radio" name="answer.environment" value="preview">Preview</label>
<label><input type="radio" name="answer.environment" value="staging">Staging</label>
<label><input type="radio" name="answer.environment" value="production">Production</label>
<input name="answer.version" value="main">
<button type="submit" name="action" value="accept">Submit</button></form>
{% endfor %}</body></html>"""
)
_floor_waiters: dict[int, asyncio.Future] = {}
floor_woken: dict[int, float] = {}  # part id -> when its in-process waiter had the answer


@login_required
def floor_page(request: HttpRequest, conversation_id: int) -> HttpResponse:
    """Show a conversation's pending questions as bare forms; on the embedded stack, park an
    in-process waiter for each (the floor may hold what our runs must not: a future)."""
    parts = list(
        Part.objects.filter(
            conversation_id=conversation_id,
            conversation__owner=request.user,
            state=Part.State.PENDING,
        ).order_by("pk")
    )
    if settings.JOBS_RUN_IN != "workers":
        for part in parts:
            server_loop.submit(_floor_wait(part.pk))
    return HttpResponse(FLOOR_PAGE.render({"parts": parts}, request))


async def _floor_wait(part_id: int) -> None:
    future = _floor_waiters[part_id] = asyncio.get_running_loop().create_future()
    await future  # the answer itself, handed over in memory
    floor_woken[part_id] = time.time()


def _floor_wake(part_id: int, envelope: dict) -> None:
    if (future := _floor_waiters.pop(part_id, None)) is not None:
        future.set_result(envelope)


@login_required
@require_POST
def floor_answer(request: HttpRequest, part_id: int) -> HttpResponse:
    """answer_latency's floor: save the answer in one conditional UPDATE (one winner, the
    person's own question only) and wake its waiter the way the stack must: in-process on the
    embedded stack; in scale-out, a NOTIFY with the commit, to a waiter in another process."""
    envelope = {
        "action": "accept",
        "content": {
            "environment": request.POST.get("answer.environment", ""),
            "version": request.POST.get("answer.version", ""),
        },
    }
    mine = Part.objects.filter(
        pk=part_id, state=Part.State.PENDING, conversation__owner=request.user
    )
    with transaction.atomic():
        saved = mine.update(
            state=Part.State.SUBMITTED,
            response=envelope,
            settled_at=timezone.now(),
            settled_by=request.user,
        )
        if saved and settings.JOBS_RUN_IN == "workers":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_notify(%s, %s)", [FLOOR_CHANNEL, str(part_id)])
    if not saved:
        raise Http404("No pending question of yours with that id.")
    if settings.JOBS_RUN_IN != "workers":
        server_loop.call_soon(partial(_floor_wake, part_id, envelope))
    return HttpResponse("<p>Saved.</p>")


def floor_times(request: HttpRequest) -> JsonResponse:
    """Return when each in-process floor waiter had its answer (embedded stack)."""
    return JsonResponse({str(pk): stamp for pk, stamp in floor_woken.items()})


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

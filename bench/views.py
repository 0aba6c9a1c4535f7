"""Bench-only endpoints: the floor of an answer (a bare page of forms, the view, its waiters'
times) and a census of what the server process holds."""

import asyncio
import gc
import inspect
import threading
import tracemalloc
from collections import Counter

import psutil
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.template import engines
from django.views.decorators.http import require_POST
from jsonschema import ValidationError

from bench import answer_floor
from elicitation.models import Part
from playground.runs.models import Turn
from playground.server import server_loop

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


@login_required
def floor_page(request: HttpRequest, conversation_id: int) -> HttpResponse:
    """Show a conversation's pending questions as bare forms."""
    parts = Part.objects.filter(
        conversation_id=conversation_id, conversation__owner=request.user, state=Part.State.PENDING
    ).order_by("pk")
    return HttpResponse(FLOOR_PAGE.render({"parts": parts}, request))


@login_required
@require_POST
def floor_answer(request: HttpRequest, part_id: int) -> HttpResponse:
    """The floor of an answer (bench/answer_floor.py); the chip comes back, as ours does."""
    fields = {
        key.removeprefix("answer."): value
        for key, value in request.POST.items()
        if key.startswith("answer.")
    }
    try:
        html = answer_floor.settle(part_id, request.user, fields)
    except ValidationError as error:
        return HttpResponse(f"Refused: {error.message}", status=400)
    if html is None:
        raise Http404("No pending question of yours with that id.")
    return HttpResponse(html)


def floor_times(request: HttpRequest) -> JsonResponse:
    """Return when each of this process's floor waiters had its answer (embedded stack)."""
    return JsonResponse({str(pk): stamp for pk, (stamp, _) in answer_floor.read_back.items()})


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

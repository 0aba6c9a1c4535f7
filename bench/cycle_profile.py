"""cycle_profile: where one answer cycle spends its time, next to the baseline POST.

Not a benchmark with a target: the profile behind settle_throughput's ratio. It runs in this
process, against the stack's database and channel layer (no worker is started: the resumed
run is executed here, as a worker would, so every query and render is seen): the settle
POST through Django's test client, then the resumed run. Each query, template render and
channel-layer send is timed; "other" is the rest (ORM, views, async hand-offs).
"""

import statistics
import time
from collections import defaultdict

from bench.runner import bench_main
from bench.stack import USERNAME

CYCLES = 40


class Stopwatch:
    """Count and time queries, renders and sends while active."""

    def __init__(self):
        self.count = defaultdict(int)
        self.seconds = defaultdict(float)
        self.writes = 0

    def add(self, kind: str, started: float) -> None:
        self.count[kind] += 1
        self.seconds[kind] += time.perf_counter() - started

    def query(self, execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.add("queries", started)
            self.writes += sql.lstrip().split(" ", 1)[0].upper() in {"INSERT", "UPDATE", "DELETE"}


def instrument(watch: Stopwatch) -> None:
    """Wrap template rendering and channel-layer sends so the stopwatch sees them."""
    from channels.layers import get_channel_layer
    from django.template.backends.django import Template

    render = Template.render

    def timed_render(self, *args, **kwargs):
        started = time.perf_counter()
        try:
            return render(self, *args, **kwargs)
        finally:
            watch.add("renders", started)

    Template.render = timed_render
    layer = get_channel_layer()
    group_send = layer.group_send

    async def timed_group_send(*args, **kwargs):
        started = time.perf_counter()
        try:
            return await group_send(*args, **kwargs)
        finally:
            watch.add("sends", started)

    layer.group_send = timed_group_send


def profile(stack) -> dict:
    from asgiref.sync import async_to_sync
    from django.contrib.auth.models import User
    from django.db import connection
    from django.test import Client

    from elicitation.models import Part
    from playground.runs.models import Agent, Conversation
    from playground.runs.tasks import execute_turn

    user = User.objects.get(username=USERNAME)
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(user)
    agent = Agent.objects.get(slug="bench-ask")
    conversation = Conversation.objects.create(owner=user, agent=agent)
    for number in range(CYCLES + 5):
        client.post(f"/c/{conversation.pk}/send", {"text": f"p{number}"}, HTTP_HX_REQUEST="true")
        if stack.kind == "scaleout":
            async_to_sync(execute_turn)(conversation.turns.latest("index").pk)  # as a worker would
    parts = list(Part.objects.filter(conversation=conversation, state=Part.State.PENDING))

    watch, baseline = Stopwatch(), Stopwatch()
    instrument(watch)
    cycle_seconds, post_seconds = [], []
    for index, part in enumerate(parts):
        measured = index >= 5  # the first few warm caches and connections
        answer = {"action": "accept", "answer.environment": "staging"}
        with connection.execute_wrapper(watch.query if measured else _passthrough):
            started = time.perf_counter()
            client.post(f"/parts/{part.pk}/settle", answer, HTTP_HX_REQUEST="true")
            if stack.kind == "scaleout":
                async_to_sync(execute_turn)(part.turn_id)
            cycle_seconds.append(time.perf_counter() - started)
        with connection.execute_wrapper(baseline.query if measured else _passthrough):
            started = time.perf_counter()
            client.post("/bench/save-row")
            post_seconds.append(time.perf_counter() - started)
    assert conversation.turns.filter(status="done").count() == len(parts)
    n = len(parts) - 5
    cycle_ms = statistics.mean(cycle_seconds[5:]) * 1000
    post_ms = statistics.mean(post_seconds[5:]) * 1000
    parts_ms = {kind: watch.seconds[kind] / n * 1000 for kind in ("queries", "renders", "sends")}
    return {
        "cycle_ms": cycle_ms,
        "cycle_queries": watch.count["queries"] / n,
        "cycle_writes": watch.writes / n,
        "cycle_query_ms": parts_ms["queries"],
        "cycle_renders": watch.count["renders"] / n,
        "cycle_render_ms": parts_ms["renders"],
        "cycle_sends": watch.count["sends"] / n,
        "cycle_send_ms": parts_ms["sends"],
        "cycle_other_ms": cycle_ms - sum(parts_ms.values()),
        "post_ms": post_ms,
        "post_queries": baseline.count["queries"] / n,
        "post_writes": baseline.writes / n,
        "post_query_ms": baseline.seconds["queries"] / n * 1000,
        "cost_ratio": cycle_ms / post_ms,
    }


def _passthrough(execute, sql, params, many, context):
    return execute(sql, params, many, context)


def run(stack, quick: bool, **options) -> dict:
    assert not stack.workers, "run with --workers 0: the resumed runs are executed here"
    return profile(stack)


if __name__ == "__main__":
    bench_main("cycle_profile", run)

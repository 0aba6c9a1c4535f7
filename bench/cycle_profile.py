"""cycle_profile: where one answer cycle spends its time, next to the answer floor's.

Not a benchmark with a target: the profile behind answer_latency's and settle_throughput's
ratios. It runs in this process, against the stack's database and channel layer (no worker is
started: the resumed run is executed here, as a worker would, so every query and render is
seen): the settle POST through Django's test client, then the resumed run; and the answer
floor's POST (bench/answer_floor.py), then its waiter. Each query and commit (in any thread),
template render and channel-layer send is timed; "other" is the rest (ORM, middleware, views,
connections opened, async hand-offs).
"""

import re
import statistics
import time
from collections import defaultdict

from bench.runner import bench_main
from bench.stack import USERNAME

CYCLES = 40
WARM_UP = 5  # the first cycles warm caches and connections
WRITES = {"INSERT", "UPDATE", "DELETE"}


class Stopwatch:
    """Count and time queries, renders and sends while it is the active one."""

    def __init__(self):
        self.count = defaultdict(int)
        self.seconds = defaultdict(float)
        self.writes = 0
        self.statements = defaultdict(lambda: [0, 0.0])  # statement → [count, seconds]

    def add(self, kind: str, started: float) -> None:
        self.count[kind] += 1
        self.seconds[kind] += time.perf_counter() - started


active: list[Stopwatch | None] = [None]


def _timed(kind: str, call, *args, **kwargs):
    watch, started = active[0], time.perf_counter()
    try:
        return call(*args, **kwargs)
    finally:
        if watch is not None:
            watch.add(kind, started)


def statement(sql: str) -> str:
    """Name a query by what it does to which table: "UPDATE playground_turn", "SELECT
    elicitation_part (skip locked)"."""
    verb = sql.lstrip().split(" ", 1)[0].upper()
    table = re.search(r'(?:FROM|INTO|UPDATE|JOIN)\s+"?(\w+)"?', sql, re.IGNORECASE)
    name = f"{verb} {table.group(1)}" if table and verb != "SAVEPOINT" else verb
    return name + (" (skip locked)" if "SKIP LOCKED" in sql.upper() else "")


def instrument() -> None:
    """Wrap every query and commit (whatever the thread), template render and channel-layer
    send, so the active stopwatch sees them."""
    from channels.layers import get_channel_layer
    from django.db.backends.base.base import BaseDatabaseWrapper
    from django.db.backends.utils import CursorWrapper
    from django.template.backends.django import Template

    execute = CursorWrapper._execute_with_wrappers

    def timed_execute(self, sql, *args, **kwargs):
        watch, started = active[0], time.perf_counter()
        try:
            return _timed("queries", execute, self, sql, *args, **kwargs)
        finally:
            if watch is not None:
                watch.writes += sql.lstrip().split(" ", 1)[0].upper() in WRITES
                tally = watch.statements[statement(sql)]
                tally[0] += 1
                tally[1] += time.perf_counter() - started

    CursorWrapper._execute_with_wrappers = timed_execute
    commit = BaseDatabaseWrapper._commit
    BaseDatabaseWrapper._commit = lambda self: _timed("commits", commit, self)
    render = Template.render
    Template.render = lambda self, *args, **kwargs: _timed("renders", render, self, *args, **kwargs)
    layer = get_channel_layer()
    group_send = layer.group_send

    async def timed_group_send(*args, **kwargs):
        watch, started = active[0], time.perf_counter()
        try:
            return await group_send(*args, **kwargs)
        finally:
            if watch is not None:
                watch.add("sends", started)

    layer.group_send = timed_group_send


def profile(stack) -> dict:
    from asgiref.sync import async_to_sync
    from django.contrib.auth.models import User
    from django.test import Client

    from bench import answer_floor
    from elicitation.models import Part
    from playground.runs.models import Agent, Conversation
    from playground.runs.tasks import execute_turn

    user = User.objects.get(username=USERNAME)
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(user)
    agent = Agent.objects.get(slug="bench-ask")
    asked = []
    for _ in ("ours", "floor"):
        conversation = Conversation.objects.create(owner=user, agent=agent)
        for number in range(CYCLES + WARM_UP):
            text = {"text": f"p{conversation.pk}-{number}"}
            client.post(f"/c/{conversation.pk}/send", text, HTTP_HX_REQUEST="true")
            if stack.kind == "scaleout":
                async_to_sync(execute_turn)(conversation.turns.latest("index").pk)  # a worker's
        asked.append(list(Part.objects.filter(conversation=conversation, state="pending")))

    watches = {"ours": Stopwatch(), "floor": Stopwatch()}
    seconds: dict[str, list[float]] = {"ours": [], "floor": []}
    instrument()
    answer = {"answer.environment": "staging", "answer.version": "v1"}
    for index, (ours, floor) in enumerate(zip(*asked, strict=True)):
        measured = index >= WARM_UP
        active[0] = watches["ours"] if measured else None
        started = time.perf_counter()
        client.post(
            f"/parts/{ours.pk}/settle", {"action": "accept", **answer}, HTTP_HX_REQUEST="true"
        )
        if stack.kind == "scaleout":
            async_to_sync(execute_turn)(ours.turn_id)
        seconds["ours"].append(time.perf_counter() - started)

        active[0] = watches["floor"] if measured else None
        started = time.perf_counter()
        client.post(f"/bench/answer-floor/{floor.pk}", answer, HTTP_HX_REQUEST="true")
        if stack.kind == "scaleout":  # embedded, the commit ran the waiter here already
            async_to_sync(answer_floor.wait)(floor.turn_id, floor.pk)
        seconds["floor"].append(time.perf_counter() - started)
        active[0] = None
    assert len(answer_floor.read_back) == len(asked[1])

    n = CYCLES
    figures = {}
    for name, watch in watches.items():
        total = statistics.mean(seconds[name][WARM_UP:]) * 1000
        kinds = ("queries", "commits", "renders", "sends")
        parts = {kind: watch.seconds[kind] / n * 1000 for kind in kinds}
        figures |= {
            f"{name}_ms": total,
            f"{name}_queries": watch.count["queries"] / n,
            f"{name}_writes": watch.writes / n,
            f"{name}_query_ms": parts["queries"],
            f"{name}_commits": watch.count["commits"] / n,
            f"{name}_commit_ms": parts["commits"],
            f"{name}_renders": watch.count["renders"] / n,
            f"{name}_render_ms": parts["renders"],
            f"{name}_sends": watch.count["sends"] / n,
            f"{name}_send_ms": parts["sends"],
            f"{name}_other_ms": total - sum(parts.values()),
            f"{name}_statements": {
                sql: f"{count / n:g} x, {seconds / n * 1000:.2f} ms"
                for sql, (count, seconds) in sorted(watch.statements.items())
            },
        }
    return figures | {"ratio": figures["ours_ms"] / figures["floor_ms"]}


def run(stack, quick: bool, **options) -> dict:
    assert not stack.workers, "run with --workers 0: the resumed runs are executed here"
    return profile(stack)


if __name__ == "__main__":
    bench_main("cycle_profile", run)

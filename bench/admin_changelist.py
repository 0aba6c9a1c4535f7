"""admin_changelist: the parts changelist at 100,000 parts, against the same page at 1,000.

`python -m bench.admin_changelist [--parts N] [--postgres]` builds a throwaway database (SQLite,
or PostgreSQL on 127.0.0.1 with `--postgres`, dropped after), fills it with
parts spread over agents, states and people, and times the admin pages a reviewer uses most
(plain list, a filter, a search, the overview) through Django's test client: same process,
same database, so the ratio to the 1,000-part baseline shows how the pages scale. It also
prints the query count of each page (the same at both sizes) and the database's plan for the
page's main query. Target: the plain list within 5x of its 1,000-part time. It also times a search
that matches nothing (target: <= 0.5 s at 20,000 parts) and the CSV and JSON Lines exports of
every part, "select all" (target: >= 5,000 parts/s). `--quick`: 20,000 parts, 3 requests.
"""

import argparse
import io
import os
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

PAGES = {
    "list": "/admin/elicitation/part/",
    "filter": "/admin/elicitation/part/?state__exact=submitted&agent=1",
    "search": "/admin/elicitation/part/?q=staging",
    "no match": "/admin/elicitation/part/?q=nothing+matches+this",
    "overview": "/admin/elicitation/part/overview/",
}
BASELINE_PARTS = 1_000
BATCH = 5_000


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.admin_changelist")
    parser.add_argument("--parts", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5, help="timed requests per page")
    parser.add_argument("--quick", action="store_true", help="20,000 parts, 3 requests a page")
    parser.add_argument("--postgres", action="store_true", help="PostgreSQL instead of SQLite")
    args = parser.parse_args()
    if args.quick:
        args.parts, args.repeat = 20_000, 3
    if args.postgres:
        from bench.stack import POSTGRES_URL, _postgres_admin

        database = f"bench_admin_{os.getpid()}"
        _postgres_admin(f'CREATE DATABASE "{database}"')
        os.environ["DATABASE_URL"] = f"{POSTGRES_URL}/{database}"
        try:
            run(args.parts, args.repeat)
        finally:
            from django.db import connections

            connections.close_all()
            _postgres_admin(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        return
    with tempfile.TemporaryDirectory(prefix="bench-admin-") as workdir:
        os.environ["DATABASE_URL"] = f"sqlite:///{Path(workdir) / 'db.sqlite3'}"
        run(args.parts, args.repeat)


def run(parts: int, repeat: int) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
    import django

    django.setup()
    from django.core.management import call_command

    from bench.stack import refresh_planner_statistics

    call_command("migrate", verbosity=0)
    call_command("seed", stdout=io.StringIO())
    client, fill = _prepare()

    fill(BASELINE_PARTS)
    refresh_planner_statistics()
    baseline = {name: _time(client, url, repeat) for name, url in PAGES.items()}
    fill(parts - BASELINE_PARTS)
    refresh_planner_statistics()
    measured = {name: _time(client, url, repeat) for name, url in PAGES.items()}

    from django.db import connection

    database = connection.display_name
    print(f"admin_changelist: {BASELINE_PARTS:,} vs {parts:,} parts, {database}, {sys.version}")
    for name in PAGES:
        (base_ms, base_q), (ms, queries) = baseline[name], measured[name]
        print(
            f"  {name:9} {base_ms:7.1f} ms -> {ms:7.1f} ms  ratio {ms / base_ms:4.1f}x  "
            f"queries {base_q} -> {queries}"
        )
    ratio = measured["list"][0] / baseline["list"][0]
    print(f"  target: list ratio <= 5.0x: {'met' if ratio <= 5 else 'NOT met'} ({ratio:.1f}x)")
    no_match = measured["no match"][0]
    verdict = "met" if no_match <= 500 else "NOT met"
    print(f"  target: no-match search <= 500 ms at {parts:,} parts: {verdict} ({no_match:.0f} ms)")
    for action in ("export_csv", "export_jsonl"):
        seconds, size = _export(client, action)
        rate = parts / seconds
        print(
            f"  {action}: {parts:,} parts in {seconds:.2f} s, {rate:,.0f} parts/s, "
            f"{size / 1e6:.1f} MB; target >= 5,000 parts/s: {'met' if rate >= 5000 else 'NOT met'}"
        )
    print("  plan of the list's page query:")
    for line in _plan():
        print(f"    {line}")


def _prepare():
    from django.contrib.auth.models import User
    from django.test import Client
    from django.utils import timezone

    from elicitation import contract
    from elicitation.models import Part, searchable_text
    from playground.runs.models import Agent, Conversation, Turn

    admin = User.objects.create_superuser("bench-admin")
    people = [User.objects.create_user(f"person-{n}") for n in range(20)]
    agents = list(Agent.objects.all())
    client = Client(HTTP_HOST="localhost")
    client.force_login(admin)
    payload = {
        "message": "Which environment should I deploy to?",
        "requestedSchema": {
            "type": "object",
            "properties": {"environment": {"type": "string", "enum": ["staging", "production"]}},
        },
    }
    normalized = contract.parse_request(payload).to_dict()
    states = ["submitted", "submitted", "submitted", "declined", "cancelled", "degraded", "pending"]
    made = 0

    def fill(count: int) -> None:
        nonlocal made
        start = timezone.now() - timedelta(days=60)
        for first in range(made, made + count, BATCH):
            size = min(BATCH, made + count - first)
            conversations = Conversation.objects.bulk_create(
                Conversation(owner=people[n % 20], agent=agents[n % len(agents)], title=f"c{n}")
                for n in range(first, first + size)
            )
            turns = Turn.objects.bulk_create(
                Turn(conversation=c, index=0, text="deploy", status="done") for c in conversations
            )
            parts = []
            for n, turn in zip(range(first, first + size), turns, strict=True):
                state = states[n % len(states)]
                settled = state != "pending"
                parts.append(
                    Part(
                        conversation_id=turn.conversation_id,
                        turn=turn,
                        call_index=0,
                        tool_call_id=f"call_{n}",
                        render_kind="elicitation",
                        payload=payload,
                        normalized=None if state == "degraded" else normalized,
                        state=state,
                        degraded_reason="property is nested" if state == "degraded" else "",
                        response=contract.accept({"environment": "staging"})
                        if state == "submitted"
                        else None,
                        settled_by=people[n % 20] if settled and state != "degraded" else None,
                    )
                )
            for part in parts:  # bulk_create does not call save(), which keeps it
                part.search_text = searchable_text(part)
            Part.objects.bulk_create(parts)
            # created_at is auto_now_add: spread it over sixty days afterwards, per batch.
            for part in parts:
                part.created_at = start + timedelta(seconds=part.pk * 50)
                part.settled_at = (
                    part.created_at + timedelta(seconds=part.pk % 600)
                    if (part.state != "pending")
                    else None
                )
            Part.objects.bulk_update(parts, ["created_at", "settled_at"], batch_size=1000)
        made += count

    return client, fill


def _time(client, url: str, repeat: int) -> tuple[float, int]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.get(url)  # warm caches and templates
    timings = []
    for _ in range(repeat):
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            response = client.get(url)
            timings.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, (url, response.status_code)
    return statistics.median(timings), len(queries)


def _export(client, action: str) -> tuple[float, int]:
    """Return the seconds and bytes of exporting every part ("select all"), read to the end."""
    from elicitation.models import Part

    data = {"action": action, "index": "0", "select_across": "1"}
    started = time.perf_counter()
    response = client.post(PAGES["list"], {**data, "_selected_action": [Part.objects.first().pk]})
    size = sum(len(piece) for piece in response.streaming_content)
    return time.perf_counter() - started, size


def _plan() -> list[str]:
    from django.contrib.admin.sites import site
    from django.db import connection
    from django.test import RequestFactory

    from elicitation.models import Part

    model_admin = site._registry[Part]
    request = RequestFactory().get(PAGES["list"])
    request.user = type("Superuser", (), {"is_active": True, "is_superuser": True})()
    queryset = model_admin.get_queryset(request).order_by("-created_at", "-pk")
    queryset = queryset.select_related(*model_admin.list_select_related)[:50]
    sql, params = queryset.query.sql_with_params()
    explain = "EXPLAIN QUERY PLAN" if connection.vendor == "sqlite" else "EXPLAIN"
    with connection.cursor() as cursor:
        cursor.execute(f"{explain} {sql}", params)
        return [row[-1] for row in cursor.fetchall()]


if __name__ == "__main__":
    main()

"""inbox: the inbox page and the header's count with 100,000 questions waiting in the database.

The person measured (the bench login) has the same 10 questions waiting in both runs: 5 in
their own conversation, 3 asked of a group of theirs and 2 asked of them by name in someone
else's. Baseline: those 10 are all the database holds. Then 99,990 more are added for 999
other people and 99 other groups (each person in one group; a third of the questions asked
of a group, a tenth of a person), 100,000 in all, written with bulk_create. Then the planner's
statistics are refreshed, as they would be after growing that much: on SQLite by the refresh
every web process runs hourly (`playground.server.planner_statistics`), on PostgreSQL by ANALYZE
(what
autovacuum does within a minute of such a write).

Measured at each size: the page's database queries (Django's test client against the same
database and code) and its time over HTTP from the running server (median of REPEATS), and
the count of the header on every page (`playground.inbox.queries.count_for`, median of REPEATS, in
this
process). Target: equal query counts, page and count within 2x of the baseline.
"""

import asyncio
import statistics
import time

from bench.client import Person
from bench.runner import bench_main
from bench.stack import USERNAME, refresh_planner_statistics

REPEATS = 20


def _question(number: int) -> dict:
    from bench.agents import QUESTION

    return {"message": f"Question {number}: which environment?", "requestedSchema": QUESTION}


def _add(owner, parts: int, *, ask=lambda number: []) -> None:
    """Give `owner` a conversation with `parts` pending questions, the n-th asked of
    `ask(n)` (names: "group:g1", "user:p2")."""
    from django.contrib.auth.models import Group, User

    from elicitation.contract import parse_request
    from elicitation.models import Part
    from playground.runs.models import Agent, Conversation, Turn

    agent = Agent.objects.get(slug="bench-ask")
    conversation = Conversation.objects.create(owner=owner, agent=agent)
    turn = Turn.objects.create(conversation=conversation, index=0, text="ask", status="waiting")
    normalized = parse_request(_question(0)).to_dict()
    rows = Part.objects.bulk_create(
        [
            Part(
                conversation=conversation,
                turn=turn,
                call_index=n,
                tool_call_id=f"call_{n}",
                render_kind="elicitation",
                payload=_question(n),
                normalized=normalized,
                allowed_actions=["accept", "decline", "cancel"],
                ask=ask(n),
            )
            for n in range(parts)
        ],
        batch_size=500,
    )
    users = {user.username: user.pk for user in User.objects.all()}
    groups = {group.name: group.pk for group in Group.objects.all()}
    by_user, by_group = Part.assigned_users.through, Part.assigned_groups.through
    by_user.objects.bulk_create(
        [
            by_user(part_id=row.pk, user_id=users[name.removeprefix("user:")])
            for row in rows
            for name in row.ask
            if name.startswith("user:")
        ],
        batch_size=1000,
    )
    by_group.objects.bulk_create(
        [
            by_group(part_id=row.pk, group_id=groups[name.removeprefix("group:")])
            for row in rows
            for name in row.ask
            if name.startswith("group:")
        ],
        batch_size=1000,
    )


def _people(people_count: int, group_count: int) -> None:
    """Make `people_count` - 1 more people and `group_count` groups; person n is in group
    n % `group_count`, the bench login in group g0."""
    from django.contrib.auth.models import Group, User

    groups = Group.objects.bulk_create(Group(name=f"g{n}") for n in range(group_count))
    people = User.objects.bulk_create(User(username=f"p{n}") for n in range(1, people_count))
    me = User.objects.get(username=USERNAME)
    through = User.groups.through
    memberships = [through(user_id=me.pk, group_id=groups[0].pk)]
    memberships += [
        through(user_id=person.pk, group_id=groups[n % group_count].pk)
        for n, person in enumerate(people, start=1)
    ]
    through.objects.bulk_create(memberships, batch_size=1000)


def _mine() -> None:
    """The bench login's 10: 5 in their conversation, 5 asked of them by p1."""
    from django.contrib.auth.models import User

    me, p1 = User.objects.get(username=USERNAME), User.objects.get(username="p1")
    _add(me, 5)
    _add(p1, 5, ask=lambda n: ["group:g0"] if n < 3 else [f"user:{USERNAME}"])


def _others(total: int, people_count: int, group_count: int) -> None:
    """`total` - 10 questions, none of which waits for the bench login."""
    from django.contrib.auth.models import User

    others = list(User.objects.exclude(username=USERNAME).order_by("pk"))
    each, left = divmod(total - 10, len(others))

    def ask(n: int, owner: int) -> list[str]:
        names = []
        if n % 3 == 0:
            names.append(f"group:g{1 + (n + owner) % (group_count - 1)}")  # never g0
        if n % 10 == 0:
            names.append(f"user:p{1 + (n * 7 + owner) % (people_count - 1)}")
        return names

    for index, owner in enumerate(others):
        _add(owner, each + (index < left), ask=lambda n, o=index: ask(n, o))


def _queries() -> tuple[int, int]:
    """Return the queries of the inbox page and of the header's count."""
    from django.contrib.auth.models import User
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from playground.inbox.queries import count_for

    me = User.objects.get(username=USERNAME)
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(me)
    client.get("/inbox/")  # warm: the session and the user are loaded once
    with CaptureQueriesContext(connection) as page:
        response = client.get("/inbox/")
        assert response.status_code == 200 and response.content.count(b"<form") >= 10
    with CaptureQueriesContext(connection) as count:
        assert count_for(me) == 10
    return len(page.captured_queries), len(count.captured_queries)


def _count_seconds() -> float:
    from django.contrib.auth.models import User

    from playground.inbox.queries import count_for

    me = User.objects.get(username=USERNAME)
    timings = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        count_for(me)
        timings.append(time.perf_counter() - started)
    return statistics.median(timings)


async def _page_seconds(person: Person) -> float:
    await person.client.get("/inbox/")  # warm
    timings = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        page = await person.client.get("/inbox/")
        timings.append(time.perf_counter() - started)
        assert page.status_code == 200
    return statistics.median(timings)


async def measure(stack, total: int, people: int, groups: int) -> dict:
    figures: dict = {"questions": total, "people": people, "groups": groups}
    await asyncio.to_thread(_people, people, groups)
    await asyncio.to_thread(_mine)
    async with Person.logged_in(stack) as person:
        for size in ("small", "large"):
            if size == "large":
                await asyncio.to_thread(_others, total, people, groups)
                await asyncio.to_thread(refresh_planner_statistics)
            page_queries, count_queries = await asyncio.to_thread(_queries)
            figures[f"page_queries_{size}"] = page_queries
            figures[f"count_queries_{size}"] = count_queries
            figures[f"page_ms_{size}"] = 1000 * await _page_seconds(person)
            figures[f"count_ms_{size}"] = 1000 * await asyncio.to_thread(_count_seconds)
    figures["page_ratio"] = figures["page_ms_large"] / figures["page_ms_small"]
    figures["count_ratio"] = figures["count_ms_large"] / figures["count_ms_small"]
    figures["target"] = "queries equal; page and count within 2x of 10 questions"
    figures["met"] = (
        figures["page_queries_small"] == figures["page_queries_large"]
        and figures["count_queries_small"] == figures["count_queries_large"]
        and figures["page_ratio"] <= 2
        and figures["count_ratio"] <= 2
    )
    return figures


def run(stack, quick: bool, **options) -> dict:
    return asyncio.run(measure(stack, *((10_000, 100, 10) if quick else (100_000, 1_000, 100))))


if __name__ == "__main__":
    bench_main("inbox", run)

"""The inbox reads the person's own questions by index, not every pending question of everyone:
with the planner's statistics refreshed (as every web process does), SQLite gathers the ids of
the person's parts through their conversations and their assignments (a UNION of three indexed
lookups, which PostgreSQL reads by index too: bench/inbox.py), then reads those parts by id."""

import pytest
from django.contrib.auth.models import Group, User
from django.db import connection

from elicitation.models import Part
from playground.inbox.queries import waiting_for
from playground.runs.models import Agent, Conversation, Turn
from playground.server import planner_statistics

pytestmark = pytest.mark.django_db(transaction=True)


def pending_questions(owner, count: int, ask=()) -> None:
    agent = Agent.objects.get(slug="schema-tester")
    conversation = Conversation.objects.create(owner=owner, agent=agent)
    turn = Turn.objects.create(conversation=conversation, index=0, text="ask")
    payload = {"message": "Which one?", "requestedSchema": {"type": "object", "properties": {}}}
    parts = Part.objects.bulk_create(
        Part(conversation=conversation, turn=turn, call_index=n, payload=payload, ask=list(ask))
        for n in range(count)
    )
    groups = Group.objects.filter(name__in=[name.removeprefix("group:") for name in ask])
    users = User.objects.filter(username__in=[name.removeprefix("user:") for name in ask])
    for part in parts:
        part.assigned_groups.add(*groups)
        part.assigned_users.add(*users)


def plan(queryset) -> str:
    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN QUERY PLAN " + sql, params)
        return "\n".join(row[3] for row in cursor.fetchall())


@pytest.mark.skipif(connection.vendor != "sqlite", reason="PostgreSQL keeps its own statistics")
def test_the_inbox_looks_up_the_persons_questions_not_everyones(alice, bob, seeded):
    Group.objects.create(name="ops").user_set.add(alice)
    for number in range(100):
        Group.objects.create(name=f"team-{number}")
        someone = User.objects.create(username=f"someone-{number}")
        pending_questions(someone, 90)
        pending_questions(someone, 10, ask=[f"group:team-{number}", f"user:someone-{number // 2}"])
    pending_questions(bob, 3, ask=["group:ops"])
    pending_questions(alice, 2)
    planner_statistics.refresh()

    assert waiting_for(alice).count() == 5
    shown = plan(waiting_for(alice))
    assert "COMPOUND QUERY" in shown, shown
    assert "SEARCH elicitation_part USING INTEGER PRIMARY KEY" in shown, shown
    assert "SCAN elicitation_part" not in shown, shown
    assert "USING INDEX elicitation_state" not in shown, shown

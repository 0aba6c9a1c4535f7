"""SQLite's planner statistics follow the tables as they grow: taken as a server starts, they
said the people's table held one row, and every join through it then read all of them (the
escalation sweep: 16 s a query at 1,000 people and 10,000 waiting questions)."""

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from elicitation.models import Part
from playground.inbox.escalation import escalate_due
from playground.server import planner_statistics
from tests.test_inbox_query_plan import pending_questions, plan

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "sqlite", reason="PostgreSQL keeps its own"),
]


def a_question_with_its_people():
    return Part.objects.select_related("conversation__agent", "conversation__owner").filter(
        pk=Part.objects.first().pk
    )


def test_a_table_grown_since_its_statistics_is_sampled_again(alice, seeded):
    pending_questions(alice, 3)
    planner_statistics.refresh()  # as a new server starts: one person
    User.objects.bulk_create(User(username=f"person-{n}") for n in range(1000))
    assert "SCAN auth_user" in plan(a_question_with_its_people())  # what the old ones led to

    assert "auth_user" in planner_statistics.refresh()
    assert "SCAN auth_user" not in plan(a_question_with_its_people())
    # Nothing moved since: nothing sampled again (the look every minute costs a count a table).
    assert planner_statistics.refresh() == []


def test_the_escalation_sweep_reads_only_questions_due_to_escalate(alice, seeded):
    for number in range(50):
        pending_questions(User.objects.create(username=f"someone-{number}"), 20)
    due = Part.objects.filter(pk=Part.objects.last().pk)
    due.update(escalate_at=timezone.now(), escalate_to=["user:nobody"])
    answered = Part.objects.filter(pk=Part.objects.first().pk)
    answered.update(escalate_at=timezone.now(), state=Part.State.SUBMITTED)

    with CaptureQueriesContext(connection) as ran:
        assert escalate_due() == []  # nobody to add: its owner may not address "nobody"
    # Whatever the statistics (none here: SQLite then guessed the state's index the best).
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN QUERY PLAN " + ran[0]["sql"])
        shown = [row[3] for row in cursor.fetchall()]
    assert shown == ["SEARCH elicitation_part USING INDEX part_escalation_due (escalate_at<?)"]
    # Each is taken from the index once: the due one claimed, the answered one let go.
    assert not Part.objects.filter(escalate_at__isnull=False).exists()
    assert due.get().escalated_at is not None
    assert answered.get().escalated_at is None

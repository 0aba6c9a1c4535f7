"""The admin reads as a person would say it: "API tokens", a turn named by its conversation and
when, and an Admin link in the site's header for staff (and for no one else)."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from playground.runs.models import Agent, Conversation, Schedule, ScheduledRun, Turn
from tests.support.admin_support import chat_client, make_person, make_staff, make_turn

MOMENT = datetime(2026, 12, 2, 21, 0, tzinfo=UTC)


@pytest.mark.django_db
def test_the_admin_index_says_api_tokens(seeded):
    page = chat_client(make_staff("root", superuser=True)).get("/admin/").content.decode()
    assert ">API tokens</a>" in page
    assert "Api tokens" not in page


@pytest.mark.django_db
def test_a_turn_is_named_by_its_conversation_which_message_and_when(seeded):
    turn = make_turn(make_person("carol"), text="Ship v1.4.2 to staging please")
    Turn.objects.filter(pk=turn.pk).update(created_at=MOMENT)
    turn.refresh_from_db()
    assert str(turn) == "Ship v1.4.2 to staging please, message 1 (2 Dec 2026, 21:00 UTC)"

    admin = chat_client(make_staff("root", superuser=True))
    page = admin.get(f"/admin/playground/turn/{turn.pk}/change/").text
    assert "Ship v1.4.2 to staging please, message 1 (2 Dec 2026, 21:00 UTC)" in page
    # In the list, where the row has the conversation and the time, the turn is "Message 1".
    page = admin.get("/admin/playground/turn/").text
    assert f'<a href="/admin/playground/turn/{turn.pk}/change/">Message 1</a>' in page
    assert "Turn 0 of" not in page


@pytest.mark.django_db
def test_a_scheduled_turn_is_named_as_a_run(seeded):
    turn = make_turn(make_person("dave"), text="Runs of Support triage")
    Turn.objects.filter(pk=turn.pk).update(created_at=MOMENT, scheduled=True, index=2)
    turn.refresh_from_db()
    assert str(turn) == "Runs of Support triage, run 3 (2 Dec 2026, 21:00 UTC)"


@pytest.mark.django_db
def test_staff_find_the_admin_in_the_header_and_no_one_else_does(seeded):
    staff_page = chat_client(make_staff("root")).get("/").content.decode()
    person_page = chat_client(make_person("erin")).get("/").content.decode()
    assert '<a href="/admin/">Admin</a>' in staff_page
    assert "/admin/" not in person_page


@pytest.mark.django_db
def test_a_schedules_page_names_each_runs_turn_in_the_same_few_queries(seeded):
    owner = make_person("frank")
    agent = Agent.objects.get(slug="support-triage")
    runs = Conversation.objects.create(owner=owner, agent=agent, title="Runs of Support triage")
    schedule = Schedule.objects.create(agent=agent, owner=owner, conversation=runs)
    admin = chat_client(make_staff("root", superuser=True))
    admin.get(f"/admin/playground/schedule/{schedule.pk}/change/")  # caches filled once

    def page_with_runs(count: int) -> tuple[str, int]:
        start = runs.turns.count()
        for index in range(start, start + count):
            turn = Turn.objects.create(conversation=runs, index=index, text="Run", scheduled=True)
            Turn.objects.filter(pk=turn.pk).update(created_at=MOMENT)
            ScheduledRun.objects.create(
                schedule=schedule,
                slot_at=MOMENT + timedelta(hours=index),
                kind="scheduled",
                turn=turn,
            )
        with CaptureQueriesContext(connection) as queries:
            page = admin.get(f"/admin/playground/schedule/{schedule.pk}/change/").text
        return page, len(queries)

    page, few = page_with_runs(1)
    assert "Runs of Support triage, run 1 (2 Dec 2026, 21:00 UTC)" in page
    page, more = page_with_runs(5)
    assert "Runs of Support triage, run 6 (2 Dec 2026, 21:00 UTC)" in page
    assert more == few

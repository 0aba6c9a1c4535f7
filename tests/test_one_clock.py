"""One clock: every time a person reads says its zone, pages that are not a conversation use
the reader's zone, and durations read as durations."""

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import User
from django.db import OperationalError, connection
from django.utils import timezone

from elicitation import contract
from elicitation.review import describe_duration
from elicitation.zones import set_zone
from playground.api.models import ApiToken
from playground.api.tokens import create_token
from playground.runs.models import Turn
from tests.support.admin_support import chat_client, make_person, make_staff, make_turn, new_part

# 21:00 UTC on 2 December 2026: 22:00 in Berlin, 06:00 the next day in Tokyo.
MOMENT = datetime(2026, 12, 2, 21, 0, tzinfo=UTC)


@pytest.fixture
def berliner(seeded) -> User:
    person = make_staff("root", superuser=True)
    set_zone(person, "Europe/Berlin")
    return person


@pytest.mark.django_db
def test_the_tokens_page_shows_times_in_the_readers_zone_and_says_which(berliner):
    token, _ = create_token(berliner, "deploy bot")
    ApiToken.objects.filter(pk=token.pk).update(created_at=MOMENT)
    page = chat_client(berliner).get("/tokens/").content.decode()
    assert "2 Dec 2026, 22:00 CET" in page
    assert "Times are in your time zone, Europe/Berlin" in page


@pytest.mark.django_db
def test_the_admin_parts_list_uses_the_readers_zone_not_the_owners(berliner):
    owner = make_person("tokyo")
    set_zone(owner, "Asia/Tokyo")
    part = new_part(make_turn(owner))
    part.save()
    type(part).objects.filter(pk=part.pk).update(created_at=MOMENT)
    page = chat_client(berliner).get("/admin/elicitation/part/").content.decode()
    assert '2 Dec 2026<span class="under">22:00 CET</span>' in page


@pytest.mark.django_db
def test_the_admins_other_date_times_say_their_zone(berliner):
    turn = make_turn(make_person("carol"))
    type(turn.conversation).objects.filter(pk=turn.conversation_id).update(updated_at=MOMENT)
    page = chat_client(berliner).get("/admin/playground/conversation/").content.decode()
    assert "2 Dec 2026, 22:00 CET" in page


@pytest.mark.django_db
def test_the_admin_writes_every_date_time_one_way_the_chats_way(berliner):
    turn = make_turn(make_person("erin"))
    Turn.objects.filter(pk=turn.pk).update(created_at=MOMENT)
    part = new_part(turn)
    part.save()
    type(part).objects.filter(pk=part.pk).update(created_at=MOMENT, pushed_at=MOMENT)
    reader = chat_client(berliner)
    pages = [
        reader.get(f"/admin/elicitation/part/{part.pk}/change/"),  # the timeline, with seconds
        reader.get("/admin/elicitation/part/"),  # the Asked column, the time under the day
        reader.get("/admin/playground/turn/"),  # Django's own list cells
        reader.get(f"/admin/playground/turn/{turn.pk}/change/"),  # read-only fields
    ]
    for response in pages:
        page = response.content.decode()
        assert re.search(r"2 Dec 2026(, |<span class=\"under\">)22:00(:00)? CET", page), page
        # Neither Django's American default nor the ISO style the parts list used to have.
        assert not re.search(r"Dec\. 2|2026-12-02 |p\.m\.", page)


@pytest.mark.django_db
def test_the_timeline_reads_durations_as_durations(berliner):
    part = new_part(
        make_turn(make_person("dave")),
        state="submitted",
        response=contract.accept({"environment": "staging"}),
    )
    part.save()
    # The push stamp can be taken a moment before the row's own: that is "at once", not -0.0 s.
    type(part).objects.filter(pk=part.pk).update(
        created_at=MOMENT,
        pushed_at=MOMENT - timedelta(microseconds=300),
        settled_at=MOMENT + timedelta(seconds=0.4),
        resumed_at=MOMENT + timedelta(minutes=3, seconds=5),
    )
    page = chat_client(berliner).get(f"/admin/elicitation/part/{part.pk}/change/").content
    timeline = page.decode().split('<ol class="timeline">')[1].split("</ol>")[0]
    assert "+-" not in timeline and "-0.0" not in timeline
    assert "2 Dec 2026, 22:00:00 CET" in timeline
    assert "at once" in timeline
    assert "0.4\u00a0s later" in timeline
    assert "3\u00a0min 5\u00a0s later" in timeline


@pytest.mark.django_db
def test_someone_whose_zone_is_not_known_yet_reads_the_sites_zone(seeded):
    person = make_staff("newcomer", superuser=True)
    create_token(person, "deploy bot")
    ApiToken.objects.update(created_at=MOMENT)
    assert "2 Dec 2026, 21:00 UTC" in chat_client(person).get("/tokens/").content.decode()
    assert timezone.get_current_timezone_name() == "UTC"  # nothing leaks out of the request


def lost_database(execute, sql, params, many, context):
    raise OperationalError("server closed the connection unexpectedly")


@pytest.mark.django_db
def test_a_lost_database_while_reading_the_zone_gives_the_503_page(berliner):
    client = chat_client(berliner)
    with connection.execute_wrapper(lost_database):
        response = client.get("/tokens/")
    assert response.status_code == 503
    assert "We can't reach the database right now" in response.content.decode()


@pytest.mark.parametrize(
    ("duration", "read"),
    [
        (timedelta(milliseconds=3), "under\u00a00.1\u00a0s"),
        (timedelta(seconds=0.4), "0.4\u00a0s"),
        (timedelta(seconds=42), "42\u00a0s"),
        (timedelta(minutes=3, seconds=5), "3\u00a0min 5\u00a0s"),
        (timedelta(days=3, hours=1, minutes=9), "3\u00a0d 1\u00a0h"),
    ],
)
def test_a_duration_reads_as_a_person_says_it(duration, read):
    assert describe_duration(duration) == read

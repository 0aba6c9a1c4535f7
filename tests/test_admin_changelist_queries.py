"""The parts changelist costs the same number of queries at 1 part as at 500."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from elicitation import contract
from elicitation.models import Part
from tests.support.admin_support import chat_client, make_person, make_staff, make_turn, new_part

PAGES = [
    "/admin/elicitation/part/",
    "/admin/elicitation/part/?state__exact=submitted&o=7",
    "/admin/elicitation/part/?q=staging&kind=elicitation&intent=none",
    f"/admin/elicitation/part/?created_at__year={timezone.now().year}",
]


def add_parts(turns, users, count: int, start: int = 0) -> None:
    """Bulk-create parts spread over agents, states and the people who answered."""
    parts = []
    for n in range(start, start + count):
        turn = turns[n % len(turns)]
        if n % 3:
            fields = {
                "state": Part.State.SUBMITTED,
                "response": contract.accept({"environment": "staging"}),
                "settled_at": timezone.now() + timedelta(seconds=n),
                "settled_by": users[n % len(users)],
            }
        else:
            fields = {}
        parts.append(new_part(turn, n, **fields))
    Part.objects.bulk_create(parts)


def queries_for(client, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return len(queries)


@pytest.mark.django_db
def test_the_changelist_query_count_does_not_grow_with_the_parts(seeded):
    alice, bob = make_person("alice"), make_person("bob")
    client = chat_client(make_staff("root", superuser=True))
    turns = [make_turn(alice), make_turn(bob, "support-triage"), make_turn(alice, "schema-tester")]
    add_parts(turns, [alice, bob], 1)
    at_one = {url: queries_for(client, url) for url in PAGES}

    add_parts(turns, [alice, bob], 499, start=1)
    assert Part.objects.count() == 500
    at_five_hundred = {url: queries_for(client, url) for url in PAGES}

    assert at_five_hundred == at_one
    page = client.get(PAGES[0]).content.decode()
    assert page.count('class="action-select"') == 50  # one page of 50 rows

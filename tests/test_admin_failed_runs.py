"""A failed run's summary and full trace are in the admin, findable by status."""

import pytest

from playground.runs.models import Turn
from tests.support.admin_support import chat_client, make_person, make_staff, make_turn

TURNS = "/admin/playground/turn/"


@pytest.mark.django_db
def test_a_failed_turn_shows_its_error_and_full_trace(seeded):
    turn = make_turn(make_person("alice"), text="Deploy")
    Turn.objects.filter(pk=turn.pk).update(
        status=Turn.Status.FAILED,
        error="The agent stopped with an error: KeyError: 'environment'",
        error_trace='Traceback (most recent call last):\n  File "agent.py", line 3\nKeyError',
    )
    Turn.objects.create(conversation=turn.conversation, index=1, text="Fine", status="done")
    client = chat_client(make_staff("ruth", reviewer=True))

    listed = client.get(TURNS, {"status__exact": "failed"}).content.decode()
    assert "KeyError: &#x27;environment&#x27;" in listed
    assert "Fine" not in listed

    page = client.get(f"{TURNS}{turn.pk}/change/").content.decode()
    assert '<pre class="error-trace">Traceback (most recent call last):' in page
    assert "File &quot;agent.py&quot;, line 3" in page

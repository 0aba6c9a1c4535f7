"""Conversations list their turn and pending counts, and show the transcript read-only."""

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from playground.runs.models import Turn
from tests.support.admin_support import (
    ask,
    chat_client,
    frames,
    make_part,
    make_person,
    make_staff,
    make_turn,
)

CONVERSATIONS = "/admin/playground/conversation/"


def counts(page: str) -> dict[str, tuple[str, str]]:
    """Return each listed conversation's title with its (turns, pending) cells."""
    found = re.findall(
        r'<th class="field-shown_title"><a [^>]*>(.*?)</a></th>.*?'
        r'<td class="field-turn_count">(\d+)</td><td class="field-pending_count">(\d+)</td>',
        page,
        re.S,
    )
    return {title: (turns, pending) for title, turns, pending in found}


@pytest.mark.django_db
def test_the_list_counts_turns_and_pending_questions_in_constant_queries(seeded):
    client = chat_client(make_staff("root", superuser=True))
    owner = make_person("alice")
    turn = make_turn(owner, text="Two questions waiting")
    Turn.objects.create(conversation=turn.conversation, index=1, text="again")
    make_part(turn, 0, asked=timezone.now())
    make_part(turn, 1, asked=timezone.now())
    make_part(turn, 2, asked=timezone.now(), state="cancelled", took=timedelta(0))
    with CaptureQueriesContext(connection) as few:
        page = client.get(CONVERSATIONS).content.decode()
    assert counts(page) == {"Two questions waiting": ("2", "2")}

    for n in range(30):
        make_part(make_turn(owner, text=f"Conversation {n}"), asked=timezone.now())
    with CaptureQueriesContext(connection) as many:
        page = client.get(CONVERSATIONS).content.decode()
    assert counts(page)["Conversation 7"] == ("1", "1")
    assert len(many) == len(few)


@pytest.mark.django_db(transaction=True)
def test_the_detail_shows_the_transcript_with_messages_and_chips(seeded):
    owner = make_person("alice")
    chat = chat_client(owner)
    part = ask(chat, owner, "deploy-assistant", "Ship it")
    chat.post(f"/parts/{part.pk}/settle", {"action": "decline"})

    # A superuser: transactional tests flush the reviewer group the migration made.
    client = chat_client(make_staff("root", superuser=True))
    response = client.get(f"{CONVERSATIONS}{part.conversation_id}/change/")

    [transcript] = frames(response)
    assert "Ship it" in transcript  # what the person said
    assert "Which environment should I deploy to?" in transcript
    assert "chip--declined" in transcript
    assert "Okay, nothing was deployed." in transcript
    assert "<form" not in transcript
    page = response.content.decode()
    assert f"/admin/elicitation/part/?conversation__id__exact={part.conversation_id}" in page
    assert 'name="_save"' not in page

"""Two settlements race (two tabs, a double click, a replayed POST): one wins, one resume."""

import threading

import pytest
from django.db import connection

from elicitation import contract
from elicitation.models import Part
from elicitation.settle import settle_part
from playground.runs.models import Turn
from tests.support.runtime_helpers import answer, pending, said, send, start

pytestmark = pytest.mark.django_db(transaction=True)


def test_threads_racing_to_settle_one_part_produce_exactly_one_winner(client, alice):
    client.force_login(alice)
    conversation = start(alice, "test-greeter")
    send(client, conversation, "hi")
    part = pending(conversation)
    barrier = threading.Barrier(8)
    results = []

    def racer(n: int) -> None:
        barrier.wait()
        try:
            mine = Part.objects.get(pk=part.pk)  # each tab loaded the part itself
            won = settle_part(mine, contract.accept({"name": f"racer {n}"})) is not None
            results.append(won)
        finally:
            connection.close()

    threads = [threading.Thread(target=racer, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(results) == [False] * 7 + [True]
    part.refresh_from_db()
    winner = part.response["content"]["name"]
    assert said(conversation) == [
        "Hello! One question first.",
        f"Nice to meet you, {winner} (lookup for hi).",
    ]
    assert Turn.objects.get().status == Turn.Status.DONE


def test_a_replayed_post_is_refused_and_changes_nothing(client, alice):
    client.force_login(alice)
    conversation = start(alice, "test-greeter")
    send(client, conversation, "hi")
    part = pending(conversation)
    assert answer(client, part, name="Ada").status_code == 200
    assert answer(client, part, name="Grace").status_code == 409
    part.refresh_from_db()
    assert part.response == {"action": "accept", "content": {"name": "Ada"}}
    assert said(conversation).count("Nice to meet you, Ada (lookup for hi).") == 1
    assert Part.objects.count() == 1

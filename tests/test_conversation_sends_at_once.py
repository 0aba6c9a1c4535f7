"""Two sends at once in one conversation, on PostgreSQL (run with DATABASE_URL=postgres://...):
each turn takes its own index, and each is queued once its transaction commits.

On SQLite transactions take turns (IMMEDIATE), so the two cannot overlap there."""

import threading

import pytest
from django.contrib.auth.models import User
from django.db import connection

from playground.runs.models import Agent, Conversation

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="needs PostgreSQL: SQLite's sends take turns"
)


@pytest.mark.django_db(transaction=True)
def test_two_sends_at_once_take_the_next_two_indexes():
    owner = User.objects.create_user("alice")
    agent = Agent.objects.create(slug="echo-at-once", name="Echo", kind="echo")
    conversation = Conversation.objects.create(owner=owner, agent=agent)
    # The first send is about to read the last index; the second starts just then.
    first_reads = threading.Event()
    second_started = threading.Event()
    queued, errors = [], []

    def send(text: str) -> None:
        first = text == "first"

        def meet(execute, sql, params, many, context):
            if first and 'MAX("playground_turn"."index")' in sql and not first_reads.is_set():
                first_reads.set()
                second_started.wait(timeout=10)
            elif not first and ("FOR UPDATE" in sql or "MAX(" in sql):
                second_started.set()
            return execute(sql, params, many, context)

        try:
            with connection.execute_wrapper(meet):
                Conversation.objects.get(pk=conversation.pk).add_turn(text, then=queued.append)
        except Exception as error:
            errors.append(error)
        finally:
            connection.close()

    first = threading.Thread(target=send, args=["first"])
    first.start()
    assert first_reads.wait(timeout=10)
    second = threading.Thread(target=send, args=["second"])
    second.start()
    for thread in (first, second):
        thread.join()

    assert errors == []
    turns = list(conversation.turns.order_by("index").values_list("index", "text"))
    assert turns == [(0, "first"), (1, "second")]
    assert sorted(turn.text for turn in queued) == ["first", "second"]

"""How long ago reads in the one duration format ("3 min ago"), and "just now" under a minute."""

from datetime import timedelta

import pytest
from django.template import Context, Template
from django.utils import timezone

from elicitation.models import Part
from tests.support.admin_support import chat_client, make_person, make_turn, new_part


def ago(age: timedelta | None) -> str:
    moment = None if age is None else timezone.now() - age
    return Template("{% load durations %}{{ moment|ago }}").render(Context({"moment": moment}))


@pytest.mark.parametrize(
    ("age", "read"),
    [
        (timedelta(seconds=0), "just now"),
        (timedelta(seconds=59), "just now"),
        (timedelta(seconds=-5), "just now"),  # a clock a little ahead
        (timedelta(minutes=1, seconds=59), "1\u00a0min ago"),
        (timedelta(minutes=3, seconds=5), "3\u00a0min ago"),
        (timedelta(hours=2, minutes=4, seconds=30), "2\u00a0h 4\u00a0min ago"),
        (timedelta(days=3, hours=1, minutes=9), "3\u00a0d 1\u00a0h ago"),
        (None, "—"),
    ],
)
def test_how_long_ago_reads_like_a_duration(age, read):
    assert ago(age) == read


@pytest.mark.django_db
def test_the_inbox_says_how_long_ago_each_question_was_asked(seeded):
    owner = make_person("carol")
    fresh, older = new_part(make_turn(owner)), new_part(make_turn(owner))
    fresh.save()
    older.save()
    Part.objects.filter(pk=older.pk).update(created_at=timezone.now() - timedelta(minutes=3))
    page = chat_client(owner).get("/inbox/").content.decode()
    assert ">just now</time>" in page and ">3\u00a0min ago</time>" in page
    assert "minutes ago" not in page

"""The changelist's date drill-down lists the periods asked in, and filters to them."""

import html
import re
from datetime import UTC, datetime

import pytest

from tests.support.admin_support import chat_client, make_part, make_person, make_staff, make_turn

PARTS = "/admin/elicitation/part/"


@pytest.fixture
def client(db, seeded):
    turn = make_turn(make_person("alice"))
    for n, asked in enumerate([(2025, 12, 31, 23), (2026, 3, 5, 9), (2026, 5, 4, 9)]):
        make_part(turn, n, asked=datetime(*asked, tzinfo=UTC), message=f"Question {n}")
    return chat_client(make_staff("root", superuser=True))


def choices(page: str) -> list[str]:
    hierarchy = re.search(r'<nav class="toplinks"[^>]*>(.*?)</nav>', page, re.S).group(1)
    links = re.findall(r">([^<>]+)</a>", hierarchy)
    return [re.sub(r"\s+", " ", html.unescape(text)).strip() for text in links]


def test_it_drills_from_years_to_months_to_days(client):
    assert choices(client.get(PARTS).content.decode()) == ["2025", "2026"]

    in_2026 = client.get(PARTS, {"created_at__year": 2026}).content.decode()
    assert choices(in_2026) == ["‹ All dates", "March 2026", "April 2026", "May 2026"]
    assert "Question 0" not in in_2026 and "Question 1" in in_2026

    may_4 = {"created_at__year": 2026, "created_at__month": 5, "created_at__day": 4}
    page = client.get(PARTS, may_4).content.decode()
    assert "Question 2" in page and "Question 1" not in page

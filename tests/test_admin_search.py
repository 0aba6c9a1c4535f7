"""Search finds parts by question, field titles, answered content and degraded reason."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from elicitation import contract
from elicitation.models import Part
from elicitation.settle import settle_part
from tests.support.admin_support import (
    SECRET_PAYLOAD,
    chat_client,
    make_part,
    make_person,
    make_staff,
    make_turn,
)

NOW = timezone.now()


@pytest.fixture
def found(db, seeded):
    turn = make_turn(make_person("alice"))
    parts = {
        "question": make_part(turn, 0, asked=NOW, message="Which café should we book?"),
        "answer": make_part(
            turn,
            1,
            asked=NOW,
            message="Pick one",
            state=Part.State.SUBMITTED,
            response=contract.accept({"environment": "production", "note": "Zürich office"}),
        ),
        "reason": make_part(
            turn,
            2,
            asked=NOW,
            state=Part.State.DEGRADED,
            payload=SECRET_PAYLOAD,
            normalized=None,
            degraded_reason='property "password" asks for a secret',
        ),
    }
    client = chat_client(make_staff("root", superuser=True))

    def search(term: str) -> set[str]:
        page = client.get("/admin/elicitation/part/", {"q": term}).content.decode()
        shown = {int(pk) for pk in re.findall(r"/admin/elicitation/part/(\d+)/change/", page)}
        return {name for name, part in parts.items() if part.pk in shown}

    return search


def test_it_finds_the_question_text_accents_included(found):
    assert found("café") == {"question"}


def test_it_finds_field_titles_from_the_normalized_request(found):
    assert found("Environment") == {"question", "answer"}


def test_it_finds_answered_content(found):
    assert found("Zürich") == {"answer"}
    assert found("production") == {"question", "answer"}  # an option, and the answer


def test_it_finds_degraded_reasons_and_needs_every_word(found):
    assert found("secret") == {"reason"}
    assert found('"asks for a secret" password') == {"reason"}
    assert found("secret café") == set()
    assert found("registry") == {"reason"}  # the refused payload's own question


def test_it_folds_case_beyond_ascii(found):
    # The search column is kept lower-cased: "CAFÉ" finds "café" on SQLite too.
    assert found("CAFÉ") == {"question"}


def test_it_reads_the_search_column_not_the_json_columns(db, seeded):
    client = chat_client(make_staff("root", superuser=True))
    with CaptureQueriesContext(connection) as queries:
        client.get("/admin/elicitation/part/", {"q": "nothing matches this"})
    searching = [q["sql"] for q in queries if " LIKE " in q["sql"]]
    assert searching and all("search_text" in sql for sql in searching)
    assert not any("CAST" in sql.upper() or "::text" in sql for sql in searching)


def test_an_answer_is_found_once_the_question_is_settled(db, seeded):
    turn = make_turn(make_person("alice"))
    part = make_part(turn, 0, asked=NOW, message="Pick a city")
    settle_part(part, contract.accept({"environment": "Reykjavík"}))
    assert Part.objects.filter(search_text__contains="reykjavík").get() == part

"""The overview's numbers for a small hand-made dataset, and its refusal of bad dates."""

import re
from datetime import UTC, datetime, timedelta

import pytest

from elicitation.models import Part
from tests.support.admin_support import chat_client, make_part, make_person, make_staff, make_turn

OVERVIEW = "/admin/elicitation/part/overview/"
DAY = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)


@pytest.fixture
def client(db, seeded):
    owner = make_person("alice")
    deploy, triage = make_turn(owner), make_turn(owner, "support-triage")
    for n, seconds in enumerate(range(10, 101, 10)):  # 10 s, 20 s ... 100 s
        state = Part.State.DECLINED if n in (3, 7) else Part.State.SUBMITTED
        asked = DAY + timedelta(minutes=n)
        make_part(deploy, n, asked=asked, took=timedelta(seconds=seconds), state=state)
    make_part(triage, 0, asked=DAY, took=timedelta(seconds=60), state=Part.State.CANCELLED)
    # A display card settles as it is shown: no time to answer.
    make_part(triage, 1, asked=DAY, took=timedelta(0), state="submitted", render_kind="display")
    make_part(deploy, 10, asked=DAY)
    make_part(deploy, 11, asked=DAY)
    for n, reason in enumerate(["nested", "nested", "nested", "secret"]):
        make_part(
            deploy,
            20 + n,
            asked=DAY,
            took=timedelta(0),
            state="degraded",
            **{"degraded_reason": f"property is {reason}", "normalized": None},
        )
    # The week before: outside the range.
    make_part(deploy, 30, asked=DAY - timedelta(days=7), took=timedelta(hours=1), state="submitted")
    return chat_client(make_staff("ruth", reviewer=True))


def rows(page: str, css_class: str) -> list[list[str]]:
    """Return the text of each cell of the table rows with `css_class`."""
    found = re.findall(rf'<tr class="{css_class}"[^>]*>(.*?)</tr>', page, re.S)
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", row, re.S) for row in found]
    return [[re.sub(r"<[^>]+>", "", cell).replace("\xa0", " ") for cell in row] for row in cells]


def test_it_counts_parts_by_state_in_the_range(client):
    page = client.get(OVERVIEW, {"start": "2026-05-04", "end": "2026-05-04"}).content.decode()
    counts = dict(re.findall(r'data-state="(\w+)">(\d+)<', page))
    assert counts == {
        "pending": "2",
        "submitted": "9",
        "declined": "2",
        "cancelled": "1",
        "degraded": "4",
    }
    assert "18 parts asked from 4 May 2026 to 4 May 2026" in page


def test_it_ranks_degraded_reasons(client):
    page = client.get(OVERVIEW, {"start": "2026-05-01", "end": "2026-05-07"}).content.decode()
    assert rows(page, "degraded-reason") == [
        ["property is nested", "3"],
        ["property is secret", "1"],
    ]


def test_it_gives_median_and_90th_percentile_per_agent(client):
    response = client.get(OVERVIEW, {"start": "2026-05-04", "end": "2026-05-04"})
    timings = {t.agent: (t.answered, t.median, t.p90) for t in response.context["timings"]}
    assert timings == {
        "Deploy assistant": (10, timedelta(seconds=55), timedelta(seconds=91)),
        "Support triage": (1, timedelta(seconds=60), timedelta(seconds=60)),
    }
    shown = rows(response.content.decode(), "agent-timing")
    assert shown == [
        ["Support triage", "1", "1 min", "1 min"],  # slowest median first
        ["Deploy assistant", "10", "55 s", "1 min 31 s"],
    ]


def test_the_range_starts_at_the_last_seven_days(client):
    response = client.get(OVERVIEW)
    assert response.status_code == 200
    assert response.context["end"] - response.context["start"] == timedelta(days=6)


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"start": "2026-13-01", "end": "2026-05-04"}, "Enter a date as YYYY-MM-DD"),
        ({"start": "yesterday", "end": ""}, "Enter a date as YYYY-MM-DD"),
        ({"start": "2026-05-09", "end": "2026-05-01"}, "The end date is before the start date."),
    ],
)
def test_bad_dates_are_refused_with_a_clear_message(client, query, message):
    response = client.get(OVERVIEW, query)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert "Parts by state" not in response.content.decode()


def chart(page: str, chart_id: str) -> str:
    return page.split(f'id="{chart_id}"')[1].split("</figure>")[0]


def test_it_charts_questions_by_state_per_day_as_svg(client):
    page = client.get(OVERVIEW, {"start": "2026-05-03", "end": "2026-05-05"}).content.decode()
    svg = chart(page, "chart-by-day")
    assert '<svg viewBox="0 -12 600 252" role="img"' in svg
    titles = re.findall(r"<title>(.*?)</title>", svg)
    assert titles == [
        "4 May: 2 pending",
        "4 May: 9 submitted",
        "4 May: 2 declined",
        "4 May: 1 cancelled",
        "4 May: 4 degraded",
    ]
    assert "3 May" in svg and "5 May" in svg  # every day of the range has its place
    assert "<script" not in page.split('id="content-main"')[1]  # drawn by the server


def test_it_draws_a_histogram_of_time_to_answer(client):
    page = client.get(OVERVIEW, {"start": "2026-05-04", "end": "2026-05-04"}).content.decode()
    titles = re.findall(r"<title>(.*?)</title>", chart(page, "chart-answer-time"))
    # 10 s ... 100 s for deploy, 60 s for triage: the display card and degraded parts are out.
    counts = dict(title.replace("\xa0", " ").split(": ") for title in titles)
    assert counts == {
        "under 10 s": "0 answered",
        "10 s–30 s": "2 answered",
        "30 s–1 min": "3 answered",
        "1 min–5 min": "6 answered",
        "5 min–30 min": "0 answered",
        "30 min–2 h": "0 answered",
        "2 h–1 d": "0 answered",
        "1 d or more": "0 answered",
    }


def test_a_range_with_nothing_says_so_instead_of_a_chart(client):
    page = client.get(OVERVIEW, {"start": "2020-01-01", "end": "2020-01-02"}).content.decode()
    assert chart(page, "chart-answer-time").count("Nothing to chart in this range.") == 1
    assert "<svg" not in chart(page, "chart-by-day")

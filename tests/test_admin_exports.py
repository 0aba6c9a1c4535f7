"""Exports parse back and match the database: CSV for spreadsheets, JSON Lines in full."""

import csv
import io
import json
from datetime import datetime

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.db.models.signals import post_init
from django.test.utils import CaptureQueriesContext

from elicitation.models import Part
from playground.runs.models import Agent, Conversation
from tests.support.admin_support import chat_client, make_person, make_staff, seed_review_data

PARTS = "/admin/elicitation/part/"
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def client(seeded):
    make_person("alice")
    seed_review_data("alice")
    return chat_client(make_staff("root", superuser=True))


def export(client, action: str, parts, url: str = PARTS, across: bool = False) -> str:
    data = {"action": action, "index": "0", "_selected_action": [p.pk for p in parts]}
    if across:
        data["select_across"] = "1"
    response = client.post(url, data)
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment; filename=")
    return b"".join(response.streaming_content).decode()


def moment(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def test_json_lines_hold_each_envelope_with_ids_and_timestamps(client):
    parts = list(Part.objects.select_related("conversation__agent", "settled_by"))
    lines = export(client, "export_jsonl", parts).splitlines()

    records = {record["part_id"]: record for record in map(json.loads, lines)}
    assert len(lines) == len(parts) == 7
    for part in parts:
        record = records[part.pk]
        assert record["response"] == part.response
        assert record["payload"] == part.payload
        assert record["request"] == part.normalized
        assert record["state"] == part.state
        assert (record["conversation_id"], record["turn_id"]) == (
            part.conversation_id,
            part.turn_id,
        )
        assert record["agent"] == part.conversation.agent.slug
        assert record["answered_by"] == (part.settled_by.username if part.settled_by else None)
        for field in ["created_at", "pushed_at", "settled_at", "resumed_at"]:
            assert moment(record[field]) == getattr(part, field)


def test_csv_has_a_row_per_part_with_the_envelope_as_json(client):
    parts = list(Part.objects.all())
    rows = list(csv.DictReader(io.StringIO(export(client, "export_csv", parts))))

    assert len(rows) == 7
    for row in rows:
        part = Part.objects.get(pk=int(row["part_id"]))
        assert row["state"] == part.state
        assert row["message"] == part.message
        assert json.loads(row["response"]) == part.response
        assert row["degraded_reason"] == part.degraded_reason
        assert moment(row["created_at"]) == part.created_at
        assert moment(row["settled_at"]) == part.settled_at
        if part.state == Part.State.SUBMITTED and part.intent == "":
            answered_in = (part.settled_at - part.created_at).total_seconds()
            assert float(row["time_to_answer_seconds"]) == pytest.approx(answered_in, abs=0.001)


def test_select_all_exports_the_whole_filtered_set(client):
    degraded = Part.objects.filter(state=Part.State.DEGRADED)
    lines = export(
        client, "export_jsonl", degraded[:1], url=f"{PARTS}?state__exact=degraded", across=True
    ).splitlines()
    assert sorted(json.loads(line)["part_id"] for line in lines) == sorted(
        degraded.values_list("pk", flat=True)
    )
    assert len(lines) == 2


def test_csv_cells_never_run_as_spreadsheet_formulas(client):
    part = Part.objects.filter(state=Part.State.PENDING).first()
    Part.objects.filter(pk=part.pk).update(payload={"message": '=HYPERLINK("http://x")'})
    [row] = csv.DictReader(io.StringIO(export(client, "export_csv", [part])))
    assert row["message"] == '\'=HYPERLINK("http://x")'


@pytest.mark.parametrize("action", ["export_csv", "export_jsonl"])
def test_an_export_streams_rows_in_chunks_without_building_models(client, action, monkeypatch):
    # A model instance per part (and its conversation, agent, people) made 18,000 parts take
    # 23 s; rows come as plain tuples, fetched a chunk at a time, written as they come.
    monkeypatch.setattr("elicitation.exports.CHUNK", 3)
    monkeypatch.setattr("elicitation.exports.LINES_PER_PIECE", 2)
    built = []

    def count(sender, **kwargs):
        built.append(sender)

    for model in (Part, Conversation, Agent, User):
        post_init.connect(count, sender=model, weak=False, dispatch_uid=f"built-{model}")
    try:
        with CaptureQueriesContext(connection) as queries:
            across = {"action": action, "index": "0", "select_across": "1"}
            response = client.post(PARTS, {**across, "_selected_action": [1]})
            before, built[:] = len(queries), []  # what the request itself loaded
            pieces = list(response.streaming_content)
    finally:
        for model in (Part, Conversation, Agent, User):
            post_init.disconnect(sender=model, dispatch_uid=f"built-{model}")
    rows = b"".join(pieces).decode().splitlines()
    assert len(rows) == 7 + (action == "export_csv")
    assert built == []
    assert len(pieces) == len(rows) // 2 + len(rows) % 2  # two lines a piece
    # The rows are read while the response streams: one query, fetched a chunk at a time.
    assert len([q for q in queries[before:] if "elicitation_part" in q["sql"]]) == 1

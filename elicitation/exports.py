"""Export parts for analysis: CSV for spreadsheets, JSON Lines with the full envelopes.

Both stream, so exporting every filtered part ("select all") does not build the file in memory:
rows are read CHUNK at a time, as plain tuples, and written as they come.
"""

import csv
import json
from collections.abc import Iterable, Iterator
from datetime import datetime, timedelta
from itertools import batched

from django.contrib.auth import get_user_model
from django.db.models import QuerySet, TextField
from django.db.models.fields.json import KT
from django.db.models.functions import Cast
from django.http import StreamingHttpResponse
from django.utils import timezone

from elicitation.models import Part
from elicitation.review import with_answer_time

CSV_COLUMNS = [
    "part_id",
    "conversation_id",
    "turn_id",
    "call_index",
    "tool_call_id",
    "agent",
    "kind",
    "intent",
    "state",
    "message",
    "response",
    "degraded_reason",
    "answered_by",
    "time_to_answer_seconds",
    "created_at",
    "pushed_at",
    "settled_at",
    "resumed_at",
]
# Cells a spreadsheet would run as a formula: agents and people wrote this text, not us.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
CHUNK = 2000
LINES_PER_PIECE = 200


# One query per CHUNK rows, each row a tuple of these columns: building model instances (a
# part, its conversation, agent, owner and answerer) for each row made big exports slow.
# The JSON columns are read as their text and written as it is (decoding them to write them
# again was half of what was left), the question's message taken out by the database.
COLUMNS = {
    "part_id": "pk",
    "conversation_id": "conversation_id",
    "turn_id": "turn_id",
    "call_index": "call_index",
    "tool_call_id": "tool_call_id",
    "tool_name": "tool_name",
    "agent": "conversation__agent__slug",
    "kind": "render_kind",
    "intent": "intent",
    "state": "state",
    "message": "message_text",
    "degraded_reason": "degraded_reason",
    "answered_by": f"settled_by__{get_user_model().USERNAME_FIELD}",
    "answer_time": "answer_time",
    "created_at": "created_at",
    "pushed_at": "pushed_at",
    "settled_at": "settled_at",
    "resumed_at": "resumed_at",
    "payload": "payload_json",
    "request": "request_json",
    "response": "response_json",
}
JSON_TEXT = {"payload": "payload", "request": "normalized", "response": "response"}
TIMES = ["created_at", "pushed_at", "settled_at", "resumed_at"]


def part_line(row: dict) -> str:
    """Return one part (a row of COLUMNS) as a JSON Lines record: ids, timestamps, the request
    and the envelope."""
    plain = {
        **{key: row[key] for key in list(COLUMNS)[:10]},
        "message": _message(row),
        "degraded_reason": row["degraded_reason"],
        "answered_by": row["answered_by"],
        "time_to_answer_seconds": _seconds(row["answer_time"]),
        **{key: _timestamp(row[key]) for key in TIMES},
    }
    # The JSON columns' text is JSON already (NULL: null); it goes in as it is.
    spliced = "".join(f', "{key}": {row[key] or "null"}' for key in JSON_TEXT)
    return json.dumps(plain, ensure_ascii=False)[:-1] + spliced + "}\n"


def export_jsonl(parts: QuerySet[Part]) -> StreamingHttpResponse:
    """Return the parts as JSON Lines, one record per line."""
    return _download(_joined(map(part_line, _rows(parts))), "application/jsonl", "jsonl")


def export_csv(parts: QuerySet[Part]) -> StreamingHttpResponse:
    """Return the parts as CSV, the envelope as a JSON cell."""
    writer = csv.writer(_Echo())

    def rows() -> Iterator[str]:
        yield writer.writerow(CSV_COLUMNS)
        for row in _rows(parts):
            row["message"] = _message(row)
            row["response"] = row["response"] or "null"
            row["time_to_answer_seconds"] = _seconds(row["answer_time"])
            for key in TIMES:
                row[key] = _timestamp(row[key])
            yield writer.writerow([_cell(row[column]) for column in CSV_COLUMNS])

    return _download(_joined(rows()), "text/csv", "csv")


class _Echo:
    def write(self, value: str) -> str:
        return value


def _joined(lines: Iterator[str]) -> Iterator[str]:
    """Send lines a few hundred at a time: the response's cost per piece beats a line's own."""
    for batch in batched(lines, LINES_PER_PIECE):
        yield "".join(batch)


def _rows(parts: QuerySet[Part]) -> Iterator[dict]:
    queryset = with_answer_time(parts.order_by("created_at", "pk")).annotate(
        message_text=KT("payload__message"),
        **{f"{key}_json": Cast(field, TextField()) for key, field in JSON_TEXT.items()},
    )
    keys, columns = list(COLUMNS), list(COLUMNS.values())
    for values in queryset.values_list(*columns).iterator(chunk_size=CHUNK):
        yield dict(zip(keys, values, strict=True))


def _message(row: dict) -> str:
    message = row["message"]  # (None when the payload has none, or is not an object)
    return message if isinstance(message, str) else ""


def _download(content: Iterable[str], content_type: str, extension: str) -> StreamingHttpResponse:
    stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
    response = StreamingHttpResponse(content, content_type=f"{content_type}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="parts-{stamp}.{extension}"'
    return response


def _cell(value: object) -> object:
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def _seconds(duration: timedelta | None) -> float | None:
    return None if duration is None else round(duration.total_seconds(), 3)


def _timestamp(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None

"""Export parts for analysis: CSV for spreadsheets, JSON Lines with the full envelopes.

Both stream, so exporting every filtered part ("select all") does not build the file in memory.
"""

import csv
import json
from collections.abc import Iterable, Iterator
from datetime import datetime

from django.db.models import QuerySet
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


def part_record(part: Part) -> dict:
    """Return one part as a JSON Lines record: ids, timestamps, the request and the envelope."""
    return {
        "part_id": part.pk,
        "conversation_id": part.conversation_id,
        "turn_id": part.turn_id,
        "call_index": part.call_index,
        "tool_call_id": part.tool_call_id,
        "tool_name": part.tool_name,
        "agent": part.conversation.agent.slug,
        "kind": part.render_kind,
        "intent": part.intent,
        "state": part.state,
        "message": part.message,
        "payload": part.payload,
        "request": part.normalized,
        "response": part.response,
        "degraded_reason": part.degraded_reason,
        "answered_by": part.settled_by.get_username() if part.settled_by else None,
        "time_to_answer_seconds": _seconds(part),
        "created_at": _timestamp(part.created_at),
        "pushed_at": _timestamp(part.pushed_at),
        "settled_at": _timestamp(part.settled_at),
        "resumed_at": _timestamp(part.resumed_at),
    }


def export_jsonl(parts: QuerySet[Part]) -> StreamingHttpResponse:
    """Return the parts as JSON Lines, one record per line."""
    lines = (json.dumps(part_record(part), ensure_ascii=False) + "\n" for part in _rows(parts))
    return _download(lines, "application/jsonl", "jsonl")


def export_csv(parts: QuerySet[Part]) -> StreamingHttpResponse:
    """Return the parts as CSV, the envelope as a JSON cell."""
    writer = csv.writer(_Echo())

    def rows() -> Iterator[str]:
        yield writer.writerow(CSV_COLUMNS)
        for part in _rows(parts):
            record = part_record(part)
            record["response"] = json.dumps(part.response, ensure_ascii=False)
            yield writer.writerow([_cell(record[column]) for column in CSV_COLUMNS])

    return _download(rows(), "text/csv", "csv")


class _Echo:
    def write(self, value: str) -> str:
        return value


def _rows(parts: QuerySet[Part]) -> Iterator[Part]:
    queryset = with_answer_time(parts.select_related("conversation__agent", "settled_by"))
    return queryset.order_by("created_at", "pk").iterator(chunk_size=CHUNK)


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


def _seconds(part: Part) -> float | None:
    duration = getattr(part, "answer_time", None)
    return None if duration is None else round(duration.total_seconds(), 3)


def _timestamp(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None

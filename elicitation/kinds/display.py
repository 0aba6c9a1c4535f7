"""The `display` kind: a read-only card (a title, labelled fields or a small table).

It needs no answer: it settles as soon as it is shown.

Payload: {"message"?: str, "title": str, "fields"?: [{"label": str, "value": str}],
"table"?: {"columns": [str], "rows": [[str]]}, "image"?: {"src": data URL, "alt": str}}.
An image is a small base64 data URL of a raster image type (no SVG: it can carry script).
Pure Python; never raises.
"""

import re

from elicitation.kinds.base import InteractionKind

MAX_ITEMS = 200
MAX_IMAGE_CHARS = 400_000
IMAGE_DATA_URL = re.compile(r"data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+={0,2}")


def parse_display(payload: object) -> tuple[dict | None, str]:
    """Return (normalized card, "") or (None, reason)."""
    if not isinstance(payload, dict):
        return None, "display payload must be an object"
    title = payload.get("title")
    if not isinstance(title, str) or not title.strip():
        return None, "display card needs a non-empty title"
    card: dict = {"title": title.strip(), "message": _text(payload.get("message")), "fields": []}
    fields = payload.get("fields", [])
    if not isinstance(fields, list) or len(fields) > MAX_ITEMS:
        return None, f"display fields must be a list of at most {MAX_ITEMS} items"
    for item in fields:
        if not isinstance(item, dict) or not isinstance(item.get("label"), str):
            return None, "every display field needs a string label"
        card["fields"].append({"label": item["label"], "value": _text(item.get("value"))})
    table = payload.get("table")
    if table is not None:
        columns = table.get("columns") if isinstance(table, dict) else None
        rows = table.get("rows") if isinstance(table, dict) else None
        if not isinstance(columns, list) or not isinstance(rows, list) or len(rows) > MAX_ITEMS:
            return None, f"display table needs columns and at most {MAX_ITEMS} rows"
        if any(not isinstance(row, list) or len(row) != len(columns) for row in rows):
            return None, "every display table row needs one cell per column"
        card["table"] = {
            "columns": [_text(c) for c in columns],
            "rows": [[_text(cell) for cell in row] for row in rows],
        }
    image = payload.get("image")
    if image is not None:
        src = image.get("src") if isinstance(image, dict) else None
        small = isinstance(src, str) and len(src) <= MAX_IMAGE_CHARS
        if not small or not IMAGE_DATA_URL.fullmatch(src):
            return None, "display image must be a small base64 PNG, JPEG, GIF or WebP data URL"
        card["image"] = {"src": src, "alt": _text(image.get("alt"))}
    return card, ""


def _text(value: object) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)


KIND = InteractionKind(
    name="display",
    tool_name="show_card",
    template="elicitation/kinds/display.html",
    parse=lambda payload, value: parse_display(payload),
    label="Card from",
    settles_immediately=True,
)

"""Map a normalized request to the widgets a form shows, and answers back to readable rows.

Dates and times are shown in the zone of the conversation's owner, on the server: the same
HTML serves every tab, every push and the admin's script-free frame.
"""

import math
from collections.abc import Collection
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any
from zoneinfo import ZoneInfo

from django.urls import reverse

from elicitation.contract import ElicitationRequest, Field, multiple_of_message, size_text
from elicitation.local_time import readable, to_local
from elicitation.models import AnswerFile, Part

INPUT_PREFIX = "answer."
RADIO_LIMIT = 5  # single select: radio buttons up to this many options, a select above
CHECKBOX_LIMIT = 8  # multi-select: checkboxes up to this many options, a multi-select above
MULTI_CONTROLS = ("checkboxes", "multiselect")
# An optional boolean without a default: Yes / No / No answer, so leaving it is no answer.
YES_NO_CHOICES = (("true", "Yes"), ("false", "No"), ("", "No answer"))
# An answer longer than this is collapsed in its chip behind "Show all".
LONG_ANSWER_CHARS = 300
LONG_ANSWER_LINES = 6


@dataclass(frozen=True)
class Choice:
    value: str
    label: str
    description: str | None
    dom_id: str
    checked: bool


@dataclass(frozen=True)
class FileLink:
    """One attached file as a form or chip shows it: a download link, and a preview image
    for a raster image that decoded."""

    id: str
    name: str
    size: str
    type: str
    url: str
    preview_url: str = ""

    @classmethod
    def of(cls, item: AnswerFile) -> "FileLink":
        preview = reverse("answer_file_preview", args=[item.pk.hex]) if item.preview_as else ""
        url = reverse("answer_file", args=[item.pk.hex])
        return cls(item.pk.hex, item.name, size_text(item.size), item.content_type, url, preview)


@dataclass(frozen=True)
class Widget:
    field: Field
    control: str
    input_name: str
    dom_id: str
    value: Any  # str for single values and yes/no, list[str] for multi-select, bool for a box
    error: str = ""
    zone: str = "UTC"  # the IANA zone a date-time picker's value is in
    # Only where the form's fields depend on each other (a config card's Edit): the control
    # values this field applies to as JSON, and whether it applies to the current ones.
    show_when: str = ""
    applies: bool = True
    kept: tuple[FileLink, ...] = ()  # a file field's uploads kept from a refused try

    @property
    def accept(self) -> str:
        """Return a file input's `accept` attribute (a hint to the picker; content decides)."""
        return ",".join(self.field.accept or ())

    @property
    def step(self) -> str:
        """Return the input's step: whole numbers, any number, or a picker's precision."""
        if self.control == "datetime-local":
            # Minutes by default; a default with seconds (or a fraction) keeps them.
            precise = len(self.value) > len("2031-07-17T09:45")
            return (
                ("1" if len(self.value) == len("2031-07-17T09:45:30") else "0.001")
                if precise
                else "60"
            )
        if self.field.multiple_of is not None:
            return _number_text(Fraction(str(self.field.multiple_of)))
        return "1" if self.field.type == "integer" else "any"

    @property
    def input_min(self) -> str:
        """Return the lowest value a person may enter, for the input's `min` ("" for none)."""
        return _input_bound(self.field, upper=False)

    @property
    def input_max(self) -> str:
        """Return the highest value a person may enter, for the input's `max` ("" for none)."""
        return _input_bound(self.field, upper=True)

    @property
    def hint(self) -> str:
        """Return the limits a person should know before typing (not repeated by an error)."""
        if self.control == "datetime-local":
            return f"In {self.zone} time."
        hint = constraint_hint(self.field, self.control)
        return "" if hint == self.error else hint

    @property
    def described_by(self) -> str:
        """Return the ids of the help, hint and error texts, for `aria-describedby`."""
        ids = [
            f"{self.dom_id}-{suffix}"
            for suffix, present in (
                ("help", self.field.description),
                ("hint", self.hint),
                ("error", self.error),
            )
            if present
        ]
        return " ".join(ids)

    @property
    def choices(self) -> list[Choice]:
        """Return the options with whether each is chosen."""
        chosen = self.value if isinstance(self.value, list) else [self.value]
        if self.control == "yesno":
            return [
                Choice(value, label, None, f"{self.dom_id}-{index}", value in chosen)
                for index, (value, label) in enumerate(YES_NO_CHOICES)
            ]
        return [
            Choice(
                str(option.value),  # a number option is sent back as its text
                option.label,
                option.description,
                f"{self.dom_id}-{index}",
                str(option.value) in chosen,
            )
            for index, option in enumerate(self.field.options or ())
        ]


def control_for(field: Field) -> str:
    """Return the form control a field is shown with."""
    if field.type == "file":
        return "file"
    if field.type == "boolean":
        # Unticked is an answer (false) only where the person must answer or sees a default.
        return "checkbox" if field.required or field.default is not None else "yesno"
    if field.type == "array":
        return "checkboxes" if len(field.options or ()) <= CHECKBOX_LIMIT else "multiselect"
    if field.options is not None:
        return "radio" if len(field.options) <= RADIO_LIMIT else "select"
    if field.type in ("number", "integer"):
        return "number"
    if field.widget == "code":
        return "code"
    if field.widget == "textarea" or field.format == "multiline":
        return "textarea"
    return {"email": "email", "uri": "url", "date": "date", "date-time": "datetime-local"}.get(
        field.format or "", "text"
    )


def constraint_hint(field: Field, control: str) -> str:
    """Return a field's limits as a sentence ("Choose 1 to 3."), or "" when it has none."""
    if field.type == "file":
        return file_hint(field)
    if field.type == "array":
        # A maximum of at least every option is no limit at all.
        high = field.max_items if (field.max_items or 0) < len(field.options or ()) else None
        hint = _range("Choose", field.min_items, high, "", counts=True)
        if control == "multiselect":
            hint = f"{hint} Hold Ctrl (⌘ on a Mac) to choose more than one.".strip()
        return hint
    if field.type in ("number", "integer"):
        return _number_hint(field)
    if field.options is None and field.type == "string" and field.min_length:
        # A maximum alone needs no words: the input stops at it.
        return _range("Use", field.min_length, field.max_length, " characters", counts=True)
    return ""


# How the picker's hint names accepted types; any other is named by its MIME type.
TYPE_WORDS = {
    "text/plain": "text files",
    "text/*": "text files",
    "text/csv": "CSV files",
    "text/markdown": "Markdown files",
    "application/json": "JSON files",
    "image/*": "images",
    "image/png": "PNG images",
    "image/jpeg": "JPEG images",
    "image/gif": "GIF images",
    "image/webp": "WebP images",
    "application/pdf": "PDFs",
    "application/zip": "ZIP archives",
    "application/gzip": "gzip archives",
}


def file_hint(field: Field) -> str:
    """Return a file field's limits: "Up to 2 KB. Text files only." or "Attach at most 3
    files, each up to 10 MB. Images only."."""
    size = size_text(field.max_size or 0)
    if field.multiple:
        count = _range("Attach", field.min_items, field.max_items, " files", counts=True)
        hint = f"{count} Each file up to {size}." if count else f"Each file up to {size}."
    else:
        hint = f"Up to {size}."
    if not field.accept:
        return f"{hint} Any type."
    words = [TYPE_WORDS.get(kind, f"{kind} files") for kind in field.accept]
    kinds = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]
    return f"{hint} {kinds[0].upper()}{kinds[1:]} only."


def _number_hint(field: Field) -> str:
    """Return a number's limits: "Enter 1 to 10.", "Enter more than 0 and less than 1000."."""
    low, low_exclusive = _tighter(field.minimum, field.exclusive_minimum, max)
    high, high_exclusive = _tighter(field.maximum, field.exclusive_maximum, min)
    if low_exclusive or high_exclusive:
        words = []
        if low is not None:
            words.append(f"{'more than' if low_exclusive else 'at least'} {low}")
        if high is not None:
            words.append(f"{'less than' if high_exclusive else 'at most'} {high}")
        hint = f"Enter {' and '.join(words)}."
    else:
        hint = _range("Enter", low, high, "")
    if field.multiple_of is not None and not (field.type == "integer" and field.multiple_of == 1):
        hint = f"{hint} {multiple_of_message(field.multiple_of)}".strip()
    return hint


def _tighter(inclusive: Any, exclusive: Any, pick) -> tuple[Any, bool]:
    """Return the tighter of an inclusive and an exclusive bound, and whether it is exclusive."""
    if exclusive is None:
        return inclusive, False
    if inclusive is None or pick(inclusive, exclusive) == exclusive:
        return exclusive, True
    return inclusive, False


def _input_bound(field: Field, *, upper: bool) -> str:
    """Return the input attribute for a bound: the first value on the number's grid (its
    multipleOf, or whole numbers) within it; "" when unbounded, or when an exclusive bound
    has no grid to step to (HTML's min and max are inclusive)."""
    if field.type not in ("number", "integer") or field.options is not None:
        return ""
    sign = -1 if upper else 1  # an upper bound is a lower bound of the negated numbers
    inclusive, exclusive = (
        (field.maximum, field.exclusive_maximum)
        if upper
        else (field.minimum, field.exclusive_minimum)
    )
    step = field.multiple_of or (1 if field.type == "integer" else None)
    bounds = []
    for value, is_exclusive in ((inclusive, False), (exclusive, True)):
        if value is None:
            continue
        low = Fraction(str(value)) * sign
        if step is not None:
            grid = Fraction(str(step))
            steps = math.floor(low / grid) + 1 if is_exclusive else math.ceil(low / grid)
            low, is_exclusive = steps * grid, False
        bounds.append((low, is_exclusive))
    if not bounds:
        return ""
    low, is_exclusive = max(bounds)  # at the same value an exclusive bound is the tighter
    return "" if is_exclusive else _number_text(low * sign)


def _number_text(number: Fraction) -> str:
    return str(number.numerator) if number.denominator == 1 else repr(float(number))


def _range(verb: str, low: Any, high: Any, unit: str, *, counts: bool = False) -> str:
    def amount(n: Any) -> str:
        return f"{n}{unit[:-1] if n == 1 else unit}"

    if low is not None and high is not None and low == high:
        return f"{verb} exactly {amount(low)}."
    if low is not None and high is not None:
        return f"{verb} {low} to {amount(high)}."
    if low is not None and not (counts and low == 0):  # "at least 0 characters" says nothing
        return f"{verb} at least {amount(low)}."
    if high is not None:
        return f"{verb} at most {amount(high)}."
    return ""


def form_data(post) -> dict[str, list[str]]:
    """Return the submitted answer values keyed by property name (the form prefixes them)."""
    return {
        key.removeprefix(INPUT_PREFIX): post.getlist(key)
        for key in post
        if key.startswith(INPUT_PREFIX)
    }


def build_widgets(
    part: Part,
    request: ElicitationRequest,
    submitted: dict[str, list[str]] | None = None,
    errors: dict[str, str] | None = None,
    *,
    zone: ZoneInfo,
    files: dict[str, AnswerFile] | None = None,
) -> list[Widget]:
    """Return a widget per field, seeded by what was submitted, else the prefill or defaults.

    A date-time default or prefill is shown in `zone`, the owner's. `files` are the uploads
    the submitted values of file fields name (kept from a refused try).
    """
    prefill = part.value if isinstance(part.value, dict) else {}
    widgets = []
    for field in request.fields:
        control = control_for(field)
        kept: tuple[FileLink, ...] = ()
        if control == "file":
            ids = (submitted or {}).get(field.name, [])
            found = [files[value] for value in ids if value in (files or {})]
            kept = tuple(FileLink.of(item) for item in found if item.part_id == part.pk)
        if control == "file":
            value: Any = ""
        elif submitted is not None:
            value: Any = _from_submitted(control, submitted.get(field.name, []))
        else:
            value = _initial(control, prefill.get(field.name, field.default), zone)
        widgets.append(
            Widget(
                field=field,
                control=control,
                input_name=INPUT_PREFIX + field.name,
                dom_id=f"{part.dom_id}-{field.name}",
                value=value,
                error=(errors or {}).get(field.name, ""),
                zone=zone.key,
                kept=kept,
            )
        )
    return widgets


def _from_submitted(control: str, raw: list[str]) -> Any:
    if control in MULTI_CONTROLS:
        return raw
    if control == "checkbox":
        # The hidden "false" comes first, the checkbox's "true" after it when ticked.
        return bool(raw) and raw[-1] not in ("", "false", "off")
    return raw[-1] if raw else ""


def _initial(control: str, value: Any, zone: ZoneInfo) -> Any:
    if control in MULTI_CONTROLS:
        return [str(v) for v in value] if isinstance(value, list) else []
    if control == "checkbox":
        return value is True
    if control == "yesno":
        return {True: "true", False: "false"}.get(value, "") if isinstance(value, bool) else ""
    if value is None:
        return ""
    if control == "datetime-local" and isinstance(value, str):
        return to_local(value, zone) or value
    return str(value)


@dataclass(frozen=True)
class AnswerRow:
    """One answered field as a chip shows it."""

    label: str
    text: str  # as a person reads it
    redacted: bool = False
    style: str = ""  # "code" or "multiline": whitespace is kept
    exact: str = ""  # a date or date-time as sent, for `<time datetime>`
    files: tuple[FileLink, ...] = ()  # a file field's attached files

    @property
    def is_long(self) -> bool:
        lines = self.text.count("\n") + 1
        return len(self.text) > LONG_ANSWER_CHARS or lines > LONG_ANSWER_LINES

    @property
    def preview(self) -> str:
        """Return the start of a long answer (its first line), shown while the rest is collapsed."""
        return self.text.strip().split("\n")[0][:120].rstrip() + "…"


def answer_rows(
    request: ElicitationRequest,
    content: dict,
    redacted: Collection[str] = (),
    *,
    zone: ZoneInfo,
    files: dict[str, AnswerFile] | None = None,
) -> list[AnswerRow]:
    """Return each answered field as people read it.

    Options by their titles, dates and date-times in `zone` with the exact value kept,
    code and multiline text with their whitespace; `redacted` names the fields a secret was
    removed from.
    """
    rows = []
    for field in request.fields:
        if field.name not in content:
            continue
        value = content[field.name]
        labels = {option.value: option.label for option in field.options or ()}
        row = AnswerRow(field.label, "", field.name in redacted)
        if field.type == "file":
            rows.append(_file_row(row, value, files or {}))
            continue
        if isinstance(value, bool):
            row = replace(row, text="Yes" if value else "No")
        elif isinstance(value, list):
            row = replace(row, text=", ".join(labels.get(item, str(item)) for item in value))
            row = replace(row, text=row.text or "None")
        elif field.format in ("date", "date-time") and isinstance(value, str):
            shown = readable(value, zone, with_time=field.format == "date-time")
            row = replace(row, text=shown, exact=value)
        elif field.options is None and field.type == "string":
            style = "code" if field.widget == "code" else ""
            if not style and (field.format == "multiline" or field.widget == "textarea"):
                style = "multiline"
            row = replace(row, text=str(value), style=style)
        else:
            row = replace(row, text=labels.get(value, str(value)))
        rows.append(row)
    return rows


def _file_row(row: AnswerRow, value: Any, files: dict[str, AnswerFile]) -> AnswerRow:
    """Return a file field's answer: its files as links (a removed file by its name only)."""
    links = []
    for item in value if isinstance(value, list) else [value]:
        if not isinstance(item, dict):
            continue
        found = files.get(str(item.get("file")))
        if found is not None:
            links.append(FileLink.of(found))
        else:
            size = size_text(item["size"]) if isinstance(item.get("size"), int) else ""
            name, kind = str(item.get("name", "file")), str(item.get("type", ""))
            links.append(FileLink("", name, size, kind, ""))
    return replace(row, text=", ".join(link.name for link in links), files=tuple(links))

"""Map a normalized request to the widgets a form shows, and answers back to readable rows."""

import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from elicitation.contract import ElicitationRequest, Field
from elicitation.models import Part

INPUT_PREFIX = "answer."
RADIO_LIMIT = 5  # single select: radio buttons up to this many options, a select above
CHECKBOX_LIMIT = 8  # multi-select: checkboxes up to this many options, a multi-select above
MULTI_CONTROLS = ("checkboxes", "multiselect")
# An RFC 3339 date-time with its offset: the browser shows it in the person's local time.
_INSTANT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})", re.I)


@dataclass(frozen=True)
class Choice:
    value: str
    label: str
    description: str | None
    dom_id: str
    checked: bool


@dataclass(frozen=True)
class Widget:
    field: Field
    control: str
    input_name: str
    dom_id: str
    value: Any  # str for single values, list[str] for multi-select, bool for a checkbox
    error: str = ""
    instant: str = ""  # a date-time default with its offset, shown in local time by the browser
    # Only where the form's fields depend on each other (a config card's Edit): the control
    # values this field applies to as JSON, and whether it applies to the current ones.
    show_when: str = ""
    applies: bool = True

    @property
    def step(self) -> str:
        return "1" if self.field.type == "integer" else "any"

    @property
    def hint(self) -> str:
        """Return the limits a person should know before typing (not repeated by an error)."""
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
        return [
            Choice(
                option.value,
                option.label,
                option.description,
                f"{self.dom_id}-{index}",
                option.value in chosen,
            )
            for index, option in enumerate(self.field.options or ())
        ]


def control_for(field: Field) -> str:
    """Return the form control a field is shown with."""
    if field.type == "boolean":
        return "checkbox"
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
    if field.type == "array":
        # A maximum of at least every option is no limit at all.
        high = field.max_items if (field.max_items or 0) < len(field.options or ()) else None
        hint = _range("Choose", field.min_items, high, "", counts=True)
        if control == "multiselect":
            hint = f"{hint} Hold Ctrl (⌘ on a Mac) to choose more than one.".strip()
        return hint
    if field.type in ("number", "integer"):
        return _range("Enter", field.minimum, field.maximum, "")
    if control == "datetime-local":
        return "In your local time."
    if field.options is None and field.type == "string" and field.min_length:
        # A maximum alone needs no words: the input stops at it.
        return _range("Use", field.min_length, field.max_length, " characters", counts=True)
    return ""


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
) -> list[Widget]:
    """Return a widget per field, seeded by what was submitted, else the prefill or defaults."""
    prefill = part.value if isinstance(part.value, dict) else {}
    widgets = []
    for field in request.fields:
        control = control_for(field)
        instant = ""
        if submitted is not None:
            value: Any = _from_submitted(control, submitted.get(field.name, []))
        else:
            initial = prefill.get(field.name, field.default)
            value = _initial(control, initial)
            if control == "datetime-local" and isinstance(initial, str):
                instant = initial if _INSTANT.fullmatch(initial) else ""
        widgets.append(
            Widget(
                field=field,
                control=control,
                input_name=INPUT_PREFIX + field.name,
                dom_id=f"part-{part.pk}-{field.name}",
                value=value,
                error=(errors or {}).get(field.name, ""),
                instant=instant,
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


def _initial(control: str, value: Any) -> Any:
    if control in MULTI_CONTROLS:
        return [str(v) for v in value] if isinstance(value, list) else []
    if control == "checkbox":
        return value is True
    if value is None:
        return ""
    if control == "datetime-local" and isinstance(value, str):
        return value[:16]  # the picker shows minutes; the server adds the offset back
    return str(value)


def answer_rows(
    request: ElicitationRequest, content: dict, redacted: Collection[str] = ()
) -> list[tuple[str, str, bool]]:
    """Return (label, readable value, secret removed) for each answered field.

    Options are shown by their titles; `redacted` names the fields a secret was removed from.
    """
    rows = []
    for field in request.fields:
        if field.name not in content:
            continue
        value = content[field.name]
        labels = {option.value: option.label for option in field.options or ()}
        if isinstance(value, bool):
            shown = "Yes" if value else "No"
        elif isinstance(value, list):
            shown = ", ".join(labels.get(item, str(item)) for item in value) or "None"
        else:
            shown = labels.get(value, str(value))
        rows.append((field.label, shown, field.name in redacted))
    return rows

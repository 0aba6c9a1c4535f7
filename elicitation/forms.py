"""Map a normalized request to the widgets a form shows, and answers back to readable rows."""

from dataclasses import dataclass
from typing import Any

from elicitation.contract import ElicitationRequest, Field
from elicitation.models import Part

INPUT_PREFIX = "answer."
RADIO_LIMIT = 5  # single select: radio buttons up to this many options, a select above
CHECKBOX_LIMIT = 8  # multi-select: checkboxes up to this many options, a multi-select above


@dataclass(frozen=True)
class Widget:
    field: Field
    control: str
    input_name: str
    dom_id: str
    value: Any  # str for single values, list[str] for multi-select, bool for a checkbox
    error: str = ""

    @property
    def step(self) -> str:
        return "1" if self.field.type == "integer" else "any"


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
        if submitted is not None:
            raw = submitted.get(field.name, [])
            value: Any = _from_submitted(control, raw)
        else:
            value = _initial(control, prefill.get(field.name, field.default))
        widgets.append(
            Widget(
                field=field,
                control=control,
                input_name=INPUT_PREFIX + field.name,
                dom_id=f"part-{part.pk}-{field.name}",
                value=value,
                error=(errors or {}).get(field.name, ""),
            )
        )
    return widgets


def _from_submitted(control: str, raw: list[str]) -> Any:
    if control in ("checkboxes", "multiselect"):
        return raw
    if control == "checkbox":
        return bool(raw) and raw[-1] not in ("", "false", "off")
    return raw[-1] if raw else ""


def _initial(control: str, value: Any) -> Any:
    if control in ("checkboxes", "multiselect"):
        return [str(v) for v in value] if isinstance(value, list) else []
    if control == "checkbox":
        return value is True
    if value is None:
        return ""
    if control == "datetime-local" and isinstance(value, str):
        return value[:16]  # the picker shows minutes; the server adds the offset back
    return str(value)


def answer_rows(request: ElicitationRequest, content: dict) -> list[tuple[str, str]]:
    """Return (label, readable value) for each answered field, options shown by their titles."""
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
        rows.append((field.label, shown))
    return rows

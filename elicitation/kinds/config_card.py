"""The `config-card` kind: a proposed configuration shown as a card (Accept / Edit / Cancel).

Payload: a `request_input` payload whose flat schema describes the editable configuration;
the proposed values travel as the part's `value` and must themselves be a valid answer.
Rules a flat schema cannot state (an address whose format depends on another field) belong to
a validator that the asking app registers by name; the payload's `validator` names it, and an
answer it refuses keeps the card open with the errors next to the fields.
"""

import json
from collections.abc import Callable
from dataclasses import dataclass, replace

from elicitation import contract
from elicitation.kinds.base import (
    Answer,
    InteractionKind,
    Refusal,
    form_context,
    read_form_answer,
    request_of,
)
from elicitation.models import Part
from elicitation.widgets import answer_rows, build_widgets
from elicitation.zones import zone_of


@dataclass(frozen=True)
class ConfigRules:
    """What an app knows about its configuration that a flat schema cannot say."""

    # (content, the conversation's owner) -> {field: problem}; empty when it is valid
    validate: Callable[[dict, object], dict[str, str]]
    # values -> [(group title, [field names that apply])], for the Edit form
    layout: Callable[[dict], list[tuple[str, list[str]]]] | None = None
    # the fields whose value decides which other fields apply (a schedule's kind, say)
    controls: tuple[str, ...] = ()


VALIDATORS: dict[str, ConfigRules] = {}


def register_validator(name: str, rules: ConfigRules) -> None:
    """Let config cards whose payload says `"validator": name` use these rules."""
    VALIDATORS[name] = rules


def parse_config_card(payload: object, value: object) -> tuple[dict | None, str]:
    """Return (normalized request, "") or (None, reason)."""
    name = payload.get("validator", "") if isinstance(payload, dict) else ""
    if name and name not in VALIDATORS:
        return None, f'no configuration validator named "{name}" in this client'
    request = contract.parse_request(payload)
    if isinstance(request, contract.Degraded):
        return None, request.reason
    checked = contract.validate_content(request, value if value is not None else {})
    if not checked.ok:
        field, problem = next(iter(checked.errors.items()))
        return None, f'proposed value for "{field}" is invalid: {problem}'
    return request.to_dict(), ""


def read_config_answer(part: Part, answer: Answer) -> dict | Refusal:
    """Accept as proposed (no fields sent), or read the edited values like any form; then let
    the registered validator check the configuration as a whole."""
    if answer.action == "accept" and not answer.fields:
        checked = contract.validate_content(request_of(part), part.value)
        if not checked.ok:
            return Refusal(422, checked.errors)
        envelope = contract.accept(checked.content, redacted=checked.redacted)
    else:
        envelope = read_form_answer(part, answer)
    rules = VALIDATORS.get(part.payload.get("validator", ""))
    if rules is None or isinstance(envelope, Refusal) or envelope["action"] != "accept":
        return envelope
    errors = rules.validate(envelope["content"], part.conversation.owner)
    return Refusal(422, errors) if errors else envelope


def config_context(part: Part, submitted: dict | None, errors: dict | None) -> dict:
    """Return the form (for Edit) and the proposed values as rows while the card is open."""
    context = form_context(part, submitted, errors)
    if errors:
        context["editing"] = True  # a refused Edit stays open with what was typed
    if "rows" not in context and isinstance(part.value, dict):
        zone = zone_of(part.conversation.owner)
        context["rows"] = answer_rows(context["request"], part.value, zone=zone)
    rules = VALIDATORS.get(part.payload.get("validator", ""))
    if rules is not None and rules.layout is not None:
        values = part.value if isinstance(part.value, dict) else {}
        widgets = context["widgets"]
        if submitted is not None:
            values = {name: raw[-1] for name, raw in submitted.items() if raw}
            widgets = _hidden_from_card(part, rules, values, widgets)
        context["groups"] = _groups(rules, values, widgets)
    return context


def _hidden_from_card(part: Part, rules: ConfigRules, values: dict, widgets: list) -> list:
    """Return the refused Edit's widgets with the fields its layout hid (so they were not sent)
    showing the card's own values again: switching back shows them, not empty fields."""
    shown = {name for _, names in rules.layout(values) for name in names}
    zone = zone_of(part.conversation.owner)
    card = build_widgets(part, request_of(part), zone=zone)
    return [
        widget if widget.field.name in shown else from_card
        for widget, from_card in zip(widgets, card, strict=True)
    ]


def _groups(rules: ConfigRules, values: dict, widgets: list) -> list[tuple[str, list]]:
    """Return the Edit form's groups with every field, each field saying which control values
    it applies to (static/playground.js shows and hides it as they change)."""
    by_name = {widget.field.name: widget for widget in widgets}
    shown_now = {name for _, names in rules.layout(values) for name in names}
    applies: dict[str, dict[str, list[str]]] = {name: {} for name in by_name}
    titles: dict[str, str] = {}
    for control in rules.controls:
        options = [option.value for option in by_name[control].field.options or ()]
        for option in options:
            for title, names in rules.layout(values | {control: option}):
                for name in names:
                    titles.setdefault(name, title)
                    applies[name].setdefault(by_name[control].input_name, []).append(option)
        for when in applies.values():
            if len(when.get(by_name[control].input_name, [])) == len(options):
                del when[by_name[control].input_name]  # applies whatever the control says
    groups: dict[str, list] = {title: [] for title, _ in rules.layout(values)}
    for name, widget in by_name.items():
        if name in titles or name in shown_now:
            when = json.dumps(applies[name]) if applies[name] else ""
            shown = replace(widget, show_when=when, applies=name in shown_now)
            groups.setdefault(titles.get(name, ""), []).append(shown)
    return list(groups.items())


KIND = InteractionKind(
    name="config-card",
    tool_name="propose_config",
    template="elicitation/kinds/config_card.html",
    parse=parse_config_card,
    read_answer=read_config_answer,
    context=config_context,
    label="Proposal from",
)

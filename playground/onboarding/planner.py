"""The setup agent's thinking, as functions from JSON to JSON.

Today they are the deterministic extractor and question planner; a model could stand behind
the same names later and fill the same slots. The setup agent calls each of them inside a
recorded step, so a replay gets the recorded result back even from a source that would not
answer the same way twice.
"""

from __future__ import annotations

from typing import Any

from playground.onboarding import catalog
from playground.onboarding.extraction import AgentDraft, extract, missing_slots
from playground.onboarding.questions import (
    ConfigFormError,
    apply_answer,
    config_to_form_values,
    draft_to_config,
    form_values_to_config,
    next_question,
    parse_destination,
    trigger_values,
)
from playground.onboarding.schedules import check_trigger

# Slots a later message may change ("make it hourly"); the words-only slots are only filled.
STRUCTURED_SLOTS = ("platform", "trigger", "timezone", "destination")
# A slot's note or candidates from an earlier message, dropped when a later message settles it.
_CANDIDATES = {"platform": "platform_candidates", "timezone": "timezone_candidates"}
TEXT_SLOTS = ("name", "purpose", "instructions")

# Which slot each field of the configuration card belongs to.
FIELD_SLOTS = {
    "name": "name",
    "purpose": "purpose",
    "instructions": "instructions",
    "platform": "platform",
    "trigger_kind": "trigger",
    "trigger_time": "trigger",
    "trigger_times": "trigger",
    "trigger_weekdays_only": "trigger",
    "trigger_minutes": "trigger",
    "trigger_weeks": "trigger",
    "trigger_days": "trigger",
    "trigger_day_of_month": "trigger",
    "timezone": "timezone",
    "destination_kind": "destination",
    "destination_target": "destination",
    "tools": "tools",
}


def read_description(text: str, saved: dict[str, Any] | None = None) -> dict[str, Any]:
    """Return the draft a message describes, on top of a draft an earlier turn saved."""
    found = extract(text)
    if not saved:
        return found.to_dict()
    draft = AgentDraft.from_dict(saved)
    for slot in STRUCTURED_SLOTS:
        if getattr(found, slot) is not None:
            setattr(draft, slot, getattr(found, slot))
            draft.proposed.pop(slot, None)
            draft.errors.pop(slot, None)
            if slot in _CANDIDATES:
                setattr(draft, _CANDIDATES[slot], [])
        elif getattr(draft, slot) is None and slot in found.errors:
            draft.errors[slot] = found.errors[slot]
    for slot, candidates in _CANDIDATES.items():
        if getattr(draft, slot) is None and getattr(found, candidates):
            setattr(draft, candidates, getattr(found, candidates))
    for slot in TEXT_SLOTS:
        if getattr(draft, slot) is None and getattr(found, slot) is not None:
            setattr(draft, slot, getattr(found, slot))
    for slot, value in found.proposed.items():
        if getattr(draft, slot, None) is None:
            draft.proposed[slot] = value
    draft.tools = _tools(draft)
    draft.missing = missing_slots(draft)
    return draft.to_dict()


def understood_nothing(draft: dict[str, Any]) -> bool:
    """Return whether a description gave the wizard nothing to go on."""
    parsed = AgentDraft.from_dict(draft)
    return not parsed.proposed and parsed.missing == missing_slots(AgentDraft())


def plan_question(draft: dict[str, Any]) -> dict[str, Any] | None:
    """Return the next question (`{"slot", "payload"}`), or None when the draft is complete."""
    return next_question(AgentDraft.from_dict(draft))


def read_answer(draft: dict[str, Any], slot: str, content: dict[str, Any]) -> dict[str, Any]:
    """Return the draft with an answer applied; a bad answer leaves the slot to ask again."""
    return apply_answer(AgentDraft.from_dict(draft), slot, content).to_dict()


def proposed_config(draft: dict[str, Any]) -> dict[str, Any]:
    """Return the configuration a complete draft describes."""
    return draft_to_config(AgentDraft.from_dict(draft))


def read_card(shown: dict[str, Any], content: dict[str, Any]) -> dict[str, Any]:
    """Return `{"config"}` for accepted card values, or `{"draft"}` to ask again what is wrong.

    The card's form checks each field; this checks what a flat form cannot, such as a Slack
    destination without a channel. `shown` is the (valid) configuration the card proposed.
    """
    try:
        return {"config": form_values_to_config(content)}
    except ConfigFormError as problems:
        return {"draft": _draft_after_bad_edit(shown, content, problems.errors).to_dict()}


def check_proposal(values: dict[str, Any]) -> dict[str, Any]:
    """Return `{"config"}` for card values a model proposed, or `{"problems"}` by field.

    The same checks as an edited card: a model's "every other Monday" becomes the trigger the
    rules make, and what they refuse is refused with the same words.
    """
    try:
        return {"config": form_values_to_config(values)}
    except ConfigFormError as problems:
        return {"problems": problems.errors}


def draft_from_config(config: dict[str, Any]) -> dict[str, Any]:
    """Return the draft of a complete configuration (kept on the draft agent)."""
    draft = _complete_draft(config, config)
    draft.missing = missing_slots(draft)
    return draft.to_dict()


def _complete_draft(config: dict[str, Any], shown: dict[str, Any]) -> AgentDraft:
    return AgentDraft(
        name=config["name"],
        purpose=config["purpose"] or shown.get("purpose"),
        instructions=config["instructions"] or shown.get("instructions"),
        platform=config["platform"],
        trigger=config["trigger"],
        timezone=config["timezone"],
        destination=config["destination"],
        tools=config["tools"],
    )


def _draft_after_bad_edit(
    shown: dict[str, Any], content: dict[str, Any], errors: dict[str, str]
) -> AgentDraft:
    broken = {FIELD_SLOTS.get(field, "name") for field in errors}
    # The edited values where they are fine, the proposal where they are not: valid, slot by slot.
    merged = {k: v for k, v in content.items() if FIELD_SLOTS.get(k) not in broken}
    merged |= {
        k: v for k, v in config_to_form_values(shown).items() if FIELD_SLOTS.get(k) in broken
    }
    draft = _complete_draft(form_values_to_config(merged), shown)
    for field, problem in errors.items():
        slot = FIELD_SLOTS.get(field, "name")
        setattr(draft, slot, None)
        draft.errors[slot] = problem
    # Keep what the person chose for the slot so the question starts from it.
    _, trigger_parts, _ = check_trigger(trigger_values(content))
    _, destination_parts, _ = parse_destination(
        content.get("destination_kind"), content.get("destination_target")
    )
    for slot, parts in (("trigger", trigger_parts), ("destination", destination_parts)):
        if slot in broken and parts:
            draft.proposed[slot] = parts
    draft.missing = missing_slots(draft)
    return draft


def _tools(draft: AgentDraft) -> list[str]:
    kind = draft.destination["kind"] if draft.destination else None
    return catalog.tools_for(draft.platform, kind)

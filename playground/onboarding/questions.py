"""Ask for what an AgentDraft is missing with request_input forms, and read the answers back.

Every schema here is in the playground's flat dialect: one object of string, integer and array
properties, single selects as `oneOf` of `{const, title, description}`, multi-selects as arrays
of `anyOf` options, no nested objects and no property named like a secret.

An answer is checked again here (the form validates each field, but not that a weekly schedule
needs a day): a rejected answer leaves the slot missing, keeps the valid parts as the next
question's defaults and records a plain sentence in `draft.errors` that the next question shows.

The schedule is asked in two steps so a form shows only what applies: how often (skipped when
the description already said), then the fields that kind needs (a time for "every day", days
and a time for "every week", and so on).
"""

from __future__ import annotations

import re
from typing import Any

from elicitation.secrets import redact_secrets
from playground.onboarding import catalog, question_routing
from playground.onboarding.extraction import (
    MAX_NAME_CHARS,
    MAX_PURPOSE_CHARS,
    AgentDraft,
    clean_description,
    derive_name,
    extract,
    instructions_from,
    missing_slots,
    purpose_from,
)
from playground.onboarding.schedules import (
    DEFAULT_TIME,
    DEFAULT_TIMES,
    MAX_MINUTES,
    MAX_WEEKS,
    MIN_MINUTES,
    MIN_WEEKS,
    NEEDS,
    TIME_PATTERN,
    TIMES_PATTERN,
    as_int,
    as_time,
    as_times,
    check_trigger,
    describe_trigger,
    missing_key,
)
from playground.onboarding.time_zones import read_timezone

CHANNEL_PATTERN = r"^#?[A-Za-z0-9][A-Za-z0-9_-]{0,79}$"
MAX_DESCRIPTION_ANSWER_CHARS = 1_000
MAX_INSTRUCTIONS_ANSWER_CHARS = 8_000
MAX_TARGET_CHARS = 254

_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[A-Za-z]{2,}")
_EXAMPLE = "Watch Zendesk for urgent tickets every 15 minutes and post a summary to #support"


class ConfigFormError(ValueError):
    """The edited configuration form has problems; `errors` maps each field to a sentence."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__(" ".join(errors.values()))
        self.errors = errors


# --- Schema pieces -------------------------------------------------------------------------


def _options(options: tuple[catalog.Option, ...]) -> list[dict[str, str]]:
    return [
        {
            "const": o.value,
            "title": o.title,
            **({"description": o.description} if o.description else {}),
        }
        for o in options
    ]


def _select(
    title: str, options: tuple[catalog.Option, ...], description: str = "", default: Any = None
) -> dict[str, Any]:
    field: dict[str, Any] = {"type": "string", "title": title, "oneOf": _options(options)}
    if description:
        field["description"] = description
    if catalog.find(options, default) is not None:
        field["default"] = default
    return field


def _time_field(title: str, default: Any = None) -> dict[str, Any]:
    field: dict[str, Any] = {
        "type": "string",
        "title": title,
        "description": "Like 9am or 16:30 (the 24-hour clock unless you write am or pm).",
        "pattern": TIME_PATTERN,
        "x-ui": {"placeholder": "09:00"},
    }
    if as_time(default) is not None:
        field["default"] = as_time(default)
    return field


def _times_field(title: str, default: Any = None) -> dict[str, Any]:
    field: dict[str, Any] = {
        "type": "string",
        "title": title,
        "description": "Two or more, like 9am and 5pm or 09:00, 16:00.",
        "pattern": TIMES_PATTERN,
        "x-ui": {"placeholder": "09:00, 16:00"},
    }
    if isinstance(default, list) and default:
        field["default"] = ", ".join(default)
    return field


def _minutes_field(title: str, default: Any = None) -> dict[str, Any]:
    # The form states the limits itself ("Enter 5 to 1440.").
    field: dict[str, Any] = {
        "type": "integer",
        "title": title,
        "minimum": MIN_MINUTES,
        "maximum": MAX_MINUTES,
    }
    minutes = as_int(default)
    if minutes is not None and MIN_MINUTES <= minutes <= MAX_MINUTES:
        field["default"] = minutes
    return field


def _weeks_field(title: str, default: Any = None) -> dict[str, Any]:
    field: dict[str, Any] = {
        "type": "integer",
        "title": title,
        "minimum": MIN_WEEKS,
        "maximum": MAX_WEEKS,
    }
    weeks = as_int(default)
    if weeks is not None and MIN_WEEKS <= weeks <= MAX_WEEKS:
        field["default"] = weeks
    return field


def _days_field(title: str, default: Any = None) -> dict[str, Any]:
    # Seven options: the form shows checkboxes, never a Ctrl-click list.
    field: dict[str, Any] = {
        "type": "array",
        "title": title,
        "items": {"anyOf": [{"const": o.value, "title": o.title} for o in catalog.DAYS]},
        "minItems": 1,
    }
    days = [day for day in default or [] if catalog.find(catalog.DAYS, day)]
    if days:
        field["default"] = days
    return field


def _weekdays_only_field(default: Any = None) -> dict[str, Any]:
    field: dict[str, Any] = {"type": "boolean", "title": "Only on weekdays (Monday to Friday)"}
    if isinstance(default, bool):
        field["default"] = default
    return field


def _month_day_field(title: str, default: Any = None) -> dict[str, Any]:
    return _select(title, catalog.MONTH_DAYS, default=default)


OTHER_TIMEZONE = catalog.Option("other", "Another zone (type it below)")


def _timezone_options(*first: str) -> tuple[catalog.Option, ...]:
    """Return the curated zones, after any others the draft already names."""
    named = [catalog.find(catalog.TIMEZONES, zone) or catalog.Option(zone, zone) for zone in first]
    named = list({option.value: option for option in named}.values())
    rest = [option for option in catalog.TIMEZONES if option.value not in first]
    return (*named, *rest)


def _schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


# --- Reading values ------------------------------------------------------------------------


def _as_text(value: Any) -> str:
    return " ".join(value.split()) if isinstance(value, str) else ""


def parse_destination(
    kind: Any, target: Any = None
) -> tuple[dict[str, Any] | None, dict[str, Any], str | None]:
    """Return (destination, the valid parts, problem) for a destination kind and its target."""
    option = catalog.find(catalog.DESTINATIONS, kind)
    if not isinstance(option, catalog.Destination):
        return None, {}, "Choose where the agent should send its results."
    parts: dict[str, Any] = {"kind": kind}
    text = target.strip() if isinstance(target, str) else ""
    if option.target == "channel":
        if not re.fullmatch(CHANNEL_PATTERN, text):
            return None, parts, "Give the Slack channel to post in, like #support."
        return {**parts, "channel": "#" + text.lstrip("#").lower()}, parts, None
    if option.target == "address":
        if not _EMAIL.fullmatch(text) or len(text) > MAX_TARGET_CHARS:
            return None, parts, "Give the email address to send to, like ops@example.com."
        return {**parts, "address": text}, parts, None
    return parts, parts, None


def _clean_name(value: Any) -> str | None:
    name, _ = redact_secrets(_as_text(value))
    return name if 0 < len(name) <= MAX_NAME_CHARS else None


# --- Questions -----------------------------------------------------------------------------

Question = tuple[str, dict[str, Any], list[str]]


def _and(titles: list[str]) -> str:
    return titles[0] if len(titles) == 1 else ", ".join(titles[:-1]) + " and " + titles[-1]


def _ask_purpose(draft: AgentDraft) -> Question:
    field = {
        "type": "string",
        "title": "What the agent does",
        "minLength": 1,
        "maxLength": MAX_DESCRIPTION_ANSWER_CHARS,
        "x-ui": {"placeholder": _EXAMPLE},
    }
    if isinstance(draft.proposed.get("purpose"), str):
        field["default"] = draft.proposed["purpose"]
        message = "In one sentence, what should this agent do?"
    else:
        message = "What should the new agent do? Say what it watches, when, and where it reports."
    return message, {"purpose": field}, ["purpose"]


def _ask_platform(draft: AgentDraft) -> Question:
    candidates = [c for c in draft.platform_candidates if catalog.find(catalog.PLATFORMS, c)]
    first = [catalog.find(catalog.PLATFORMS, c) for c in candidates]
    rest = [p for p in catalog.PLATFORMS if p.value not in candidates]
    options = tuple(o for o in [*first, *rest] if o is not None)
    default = draft.proposed.get("platform") or (candidates[0] if candidates else None)
    if len(candidates) > 1:
        titles = [o.title for o in first if o is not None]
        message = f"You mentioned {_and(titles)}. Which one should the agent watch?"
    else:
        message = "Which platform should the agent watch for new work?"
    field = _select("Platform", options, default=default)
    return message, {"platform": field}, ["platform"]


_FOLLOW_UPS = {
    "every_n_minutes": "Every how many minutes should the agent run?",
    "daily": "At what time should the agent run every day?",
    "weekdays": "At what time should the agent run every weekday?",
    "times_a_day": "At which times of day should the agent run?",
    "weekly": "On which days of the week, and at what time, should the agent run?",
    "every_n_weeks": "Every how many weeks, on which days and at what time should the agent run?",
    "monthly": "On which day of the month, and at what time, should the agent run?",
}


def _ask_trigger(draft: AgentDraft) -> Question:
    proposal = draft.proposed.get("trigger") or {}
    kind = proposal.get("kind")
    if kind not in _FOLLOW_UPS:
        return _ask_how_often(proposal)
    message = _FOLLOW_UPS[kind]
    if suggestion := describe_trigger(proposal):
        message += f" I suggest {suggestion}; change it if that is not right."
    fields = {
        "minutes": _minutes_field("Every how many minutes", proposal.get("minutes")),
        "times": _times_field("Times of day", _suggested_times(proposal)),
        "weekdays_only": _weekdays_only_field(proposal.get("weekdays_only", False)),
        "weeks": _weeks_field("Every how many weeks", proposal.get("weeks")),
        "days": _days_field("Days of the week", proposal.get("days")),
        "day_of_month": _month_day_field("Day of the month", proposal.get("day_of_month")),
        "time": _time_field("Time of day", proposal.get("time") or DEFAULT_TIME),
    }
    shown = [*NEEDS[kind], *(["weekdays_only"] if kind == "times_a_day" else [])]
    properties = {key: field for key, field in fields.items() if key in shown}
    return message, properties, list(NEEDS[kind])


def _mentioned_times(proposal: dict[str, Any]) -> list[str]:
    return proposal.get("times") or ([proposal["time"]] if proposal.get("time") else [])


def _suggested_times(proposal: dict[str, Any]) -> list[str]:
    """Return the times a several-times-a-day question starts from: those mentioned, made
    up to two with the defaults when fewer were."""
    mentioned = _mentioned_times(proposal)
    if len(mentioned) >= 2:
        return mentioned
    return sorted({*mentioned, *DEFAULT_TIMES})[: max(2, len(mentioned) + 1)]


def _ask_how_often(proposal: dict[str, Any]) -> Question:
    message = "How often should the agent run?"
    mentioned = _mentioned_times(proposal)
    if mentioned:
        message += f" You mentioned {_and(mentioned)}."
    # Times mentioned suggest a daily schedule: once at one time, or at each of several.
    suggested = proposal.get("kind") or {0: None, 1: "daily"}.get(len(mentioned), "times_a_day")
    properties = {"kind": _select("How often", catalog.TRIGGERS, default=suggested)}
    return message, properties, ["kind"]


def _ask_timezone(draft: AgentDraft) -> Question:
    candidates = [zone for zone in draft.timezone_candidates if catalog.is_timezone(zone)]
    default = draft.proposed.get("timezone")
    if not catalog.is_timezone(default):
        # The description's zones first; else the person's own, as their pages show it.
        known = [*candidates, draft.home_timezone]
        default = next((zone for zone in known if catalog.is_timezone(zone)), "UTC")
    schedule = describe_trigger(draft.trigger)
    if draft.trigger and draft.trigger.get("kind") in catalog.TIMED_TRIGGERS and schedule:
        message = f"Which time zone should the schedule ({schedule}) follow?"
    else:
        message = "Which time zone should the agent's schedule follow?"
    # Every IANA zone would be ~600 options: the likely ones, and any other one typed.
    options = (*_timezone_options(*candidates, default), OTHER_TIMEZONE)
    properties = {
        "timezone": _select("Time zone", options, default=default),
        "timezone_name": {
            "type": "string",
            "title": "Another time zone",
            "description": "If yours is not in the list: a city or an IANA name.",
            "maxLength": 64,
            "x-ui": {"placeholder": "America/Vancouver"},
        },
    }
    return message, properties, ["timezone"]


def _ask_destination(draft: AgentDraft) -> Question:
    proposal = draft.proposed.get("destination") or {}
    kind = proposal.get("kind")
    messages = {
        "slack": "Which Slack channel should the agent post its results in?",
        "email": "Which email address should the agent send its results to?",
    }
    properties: dict[str, Any] = {
        "kind": _select("Send results to", catalog.DESTINATIONS, default=kind),
        "channel": {
            "type": "string",
            "title": "Slack channel",
            "description": "Needed when the results go to Slack.",
            "pattern": CHANNEL_PATTERN,
            "x-ui": {"placeholder": "#support"},
        },
        "address": {
            "type": "string",
            "format": "email",
            "title": "Email address",
            "description": "Needed when the results go by email.",
            "maxLength": MAX_TARGET_CHARS,
            "x-ui": {"placeholder": "ops@example.com"},
        },
    }
    for key in ("channel", "address"):
        if isinstance(proposal.get(key), str):
            properties[key]["default"] = proposal[key]
    message = messages.get(kind, "Where should the agent send its results?")
    return message, properties, ["kind"]


def _ask_name(draft: AgentDraft) -> Question:
    field: dict[str, Any] = {
        "type": "string",
        "title": "Name",
        "minLength": 1,
        "maxLength": MAX_NAME_CHARS,
        "x-ui": {"placeholder": "Zendesk urgent-ticket watcher"},
    }
    default = draft.proposed.get("name") or derive_name(draft.platform, None, None)
    if _clean_name(default):
        field["default"] = _clean_name(default)
    return "What should this agent be called?", {"name": field}, ["name"]


def _ask_instructions(draft: AgentDraft) -> Question:
    field: dict[str, Any] = {
        "type": "string",
        "format": "multiline",
        "title": "Instructions",
        "minLength": 1,
        "maxLength": MAX_INSTRUCTIONS_ANSWER_CHARS,
    }
    default = draft.proposed.get("instructions")
    if not isinstance(default, str) and draft.purpose:
        default = instructions_from(draft.purpose)
    if isinstance(default, str):
        field["default"] = default[:MAX_INSTRUCTIONS_ANSWER_CHARS]
    message = "What instructions should the agent follow? Edit the suggestion or write your own."
    return message, {"instructions": field}, ["instructions"]


_QUESTIONS = {
    "purpose": _ask_purpose,
    "platform": _ask_platform,
    "trigger": _ask_trigger,
    "timezone": _ask_timezone,
    "destination": _ask_destination,
    "name": _ask_name,
    "instructions": _ask_instructions,
}


def next_question(draft: AgentDraft) -> dict[str, Any] | None:
    """Return `{"slot", "payload"}` asking for the first missing slot, or None when done."""
    for slot in draft.missing:
        ask = _QUESTIONS.get(slot)
        if ask is None:
            continue
        message, properties, required = ask(draft)
        problem = draft.errors.get(slot)
        if problem:
            message = f"{problem} {message}"
        payload = {"message": message, "requestedSchema": _schema(properties, required)}
        return {"slot": slot, "payload": payload}
    return None


# --- Answers -------------------------------------------------------------------------------

# (value, parts to keep for the next question, problem); no value and no problem: ask more.
Reading = tuple[Any, dict[str, Any] | None, str | None]


def _read_purpose(draft: AgentDraft, content: dict[str, Any]) -> Reading:
    value = content.get("purpose")
    text, _ = clean_description(value if isinstance(value, str) else "")
    purpose = purpose_from(text)
    if purpose is None or len(text) > MAX_DESCRIPTION_ANSWER_CHARS:
        return None, None, "Describe what the agent should do in a sentence or two."
    return purpose, None, None


def _read_platform(draft: AgentDraft, content: dict[str, Any]) -> Reading:
    value = content.get("platform")
    if catalog.find(catalog.PLATFORMS, value) is None:
        return None, None, "Choose one of the listed platforms."
    return value, None, None


def _read_trigger(draft: AgentDraft, content: dict[str, Any]) -> Reading:
    proposal = draft.proposed.get("trigger") or {}
    if "kind" not in content:  # the follow-up: its fields complete the chosen kind
        values = {**content, "kind": proposal.get("kind")}
        times = as_times(content.get("times")) or []
        if values["kind"] == "times_a_day" and len(times) == 1:
            # One time a day is every day (or weekday) at that time: kept, not asked again.
            weekdays = content.get("weekdays_only") is True
            values = {"kind": "weekdays" if weekdays else "daily", "time": times[0]}
        trigger, parts, problem = check_trigger(values)
        # A refused answer keeps what was known (the times mentioned) for the next question.
        return trigger, {**proposal, **parts} if problem else parts or None, problem
    kind = content["kind"]
    if catalog.find(catalog.TRIGGERS, kind) is None:
        return None, None, "Choose how often the agent should run."
    if not NEEDS[kind]:
        return {"kind": kind}, None, None
    # Keep what the description said (a time, days) as the follow-up's defaults.
    return None, {**proposal, "kind": kind}, None


def _read_timezone(draft: AgentDraft, content: dict[str, Any]) -> Reading:
    typed = _as_text(content.get("timezone_name"))
    if typed:
        zone = read_timezone(typed)
        if zone is None:
            return (
                None,
                None,
                (
                    f"I don't know the time zone “{typed[:64]}”: type a city or an IANA name such "
                    "as America/Vancouver."
                ),
            )
        return zone, None, None
    value = content.get("timezone")
    if value == OTHER_TIMEZONE.value:
        return None, None, "Type the time zone, as a city or an IANA name such as Asia/Tokyo."
    if not catalog.is_timezone(value):
        return None, None, "Choose one of the listed time zones."
    return value, None, None


def _read_destination(draft: AgentDraft, content: dict[str, Any]) -> Reading:
    kind = content.get("kind")
    target = content.get("address") if kind == "email" else content.get("channel")
    destination, parts, problem = parse_destination(kind, target)
    return destination, parts or None, problem


def _read_name(draft: AgentDraft, content: dict[str, Any]) -> Reading:
    name = _clean_name(content.get("name"))
    if name is None:
        return None, None, f"Give the agent a name of up to {MAX_NAME_CHARS} characters."
    return name, None, None


def _read_instructions(draft: AgentDraft, content: dict[str, Any]) -> Reading:
    value = content.get("instructions")
    text, _ = redact_secrets(value.strip() if isinstance(value, str) else "")
    if not text or len(text) > MAX_INSTRUCTIONS_ANSWER_CHARS:
        return None, None, "Write the instructions the agent should follow."
    return text, None, None


_READERS = {
    "purpose": _read_purpose,
    "platform": _read_platform,
    "trigger": _read_trigger,
    "timezone": _read_timezone,
    "destination": _read_destination,
    "name": _read_name,
    "instructions": _read_instructions,
}


def _fill_from_description(draft: AgentDraft, description: str) -> None:
    """Fill the draft's empty slots from what a free-text answer says."""
    found = extract(description)
    for slot in ("trigger", "timezone", "destination", "name", "instructions"):
        if getattr(draft, slot) is None and getattr(found, slot) is not None:
            setattr(draft, slot, getattr(found, slot))
    if draft.platform is None and not draft.platform_candidates:
        draft.platform = found.platform
        draft.platform_candidates = found.platform_candidates
    for slot, value in found.proposed.items():
        if getattr(draft, slot, None) is None:
            draft.proposed.setdefault(slot, value)
    for slot, problem in found.errors.items():
        draft.errors.setdefault(slot, problem)
    draft.redacted = draft.redacted or found.redacted
    if draft.instructions is None:
        draft.instructions = instructions_from(clean_description(description)[0])


def apply_answer(draft: AgentDraft, slot: str, content: dict[str, Any]) -> AgentDraft:
    """Return a new draft with the answer for a slot applied; a bad answer leaves it missing."""
    updated = AgentDraft.from_dict(draft.to_dict())
    reader = _READERS.get(slot)
    if reader is None or not isinstance(content, dict):
        return updated
    value, parts, problem = reader(updated, content)
    if problem is not None or value is None:
        if problem is not None:
            updated.errors[slot] = problem
        else:
            updated.errors.pop(slot, None)
        if parts:
            updated.proposed[slot] = parts
        return updated

    setattr(updated, slot, value)
    updated.errors.pop(slot, None)
    updated.proposed.pop(slot, None)
    if slot == "platform":
        updated.platform_candidates = []
    if slot == "timezone":
        updated.timezone_candidates = []
    if slot == "purpose":
        _fill_from_description(updated, content["purpose"])
    destination_kind = updated.destination["kind"] if updated.destination else None
    updated.tools = catalog.tools_for(updated.platform, destination_kind)
    updated.missing = missing_slots(updated)
    return updated


# --- The final configuration ---------------------------------------------------------------


def _ordered_tools(tools: Any) -> list[str]:
    chosen = set(catalog.ALWAYS_TOOLS)
    if isinstance(tools, list | tuple):
        chosen.update(tool for tool in tools if isinstance(tool, str))
    return [value for value in catalog.values(catalog.TOOLS) if value in chosen]


def draft_to_config(draft: AgentDraft) -> dict[str, Any]:
    """Return the agent configuration a draft describes; unknown values stay None."""
    return {
        "name": draft.name,
        "purpose": draft.purpose,
        "instructions": draft.instructions,
        "platform": draft.platform,
        "trigger": dict(draft.trigger) if draft.trigger else None,
        "timezone": draft.timezone or "UTC",
        "destination": dict(draft.destination) if draft.destination else None,
        "tools": _ordered_tools(draft.tools),
    }


def config_schema(config: dict[str, Any] | None = None) -> dict[str, Any]:
    """Return a flat request_input schema for editing a whole configuration, pre-filled if given."""
    properties: dict[str, Any] = {
        "name": {"type": "string", "title": "Name", "minLength": 1, "maxLength": MAX_NAME_CHARS},
        "purpose": {
            "type": "string",
            "title": "Purpose",
            "description": "One sentence saying what the agent does.",
            "maxLength": MAX_PURPOSE_CHARS,
        },
        "instructions": {
            "type": "string",
            "format": "multiline",
            "title": "Instructions",
            "maxLength": MAX_INSTRUCTIONS_ANSWER_CHARS,
        },
        "platform": _select("Platform", catalog.PLATFORMS, "Where the agent reads its work from."),
        "trigger_kind": _select("Schedule", catalog.TRIGGERS),
        "trigger_time": _time_field("Time of day"),
        "trigger_times": _times_field("Times of day"),
        "trigger_weekdays_only": _weekdays_only_field(),
        "trigger_minutes": _minutes_field("Every how many minutes"),
        "trigger_weeks": _weeks_field("Every how many weeks"),
        "trigger_days": _days_field("Days of the week"),
        "trigger_day_of_month": _month_day_field("Day of the month"),
        "timezone": _select(
            "Time zone",
            _timezone_options(*([config["timezone"]] if config and config.get("timezone") else [])),
            "The zone the schedule follows.",
        ),
        "destination_kind": _select("Send results to", catalog.DESTINATIONS),
        "destination_target": {
            "type": "string",
            "title": "Channel or address",
            "description": "The Slack channel or email address; leave empty for the chat or "
            "GitHub comments.",
            "maxLength": MAX_TARGET_CHARS,
            "x-ui": {"placeholder": "#support"},
        },
        **question_routing.fields(),
    }
    for key, value in config_to_form_values(config or {}).items():
        properties[key]["default"] = value
    required = ["name", "platform", "trigger_kind", "timezone", "destination_kind"]
    return _schema(properties, required)


def config_to_form_values(config: dict[str, Any]) -> dict[str, Any]:
    """Return the flat form content for a configuration, leaving out values it does not have."""
    trigger = config.get("trigger") or {}
    destination = config.get("destination") or {}
    values = {
        "name": config.get("name"),
        "purpose": config.get("purpose"),
        "instructions": config.get("instructions"),
        "platform": config.get("platform"),
        "trigger_kind": trigger.get("kind"),
        "trigger_time": trigger.get("time"),
        "trigger_times": ", ".join(trigger.get("times") or []),
        "trigger_weekdays_only": trigger.get("weekdays_only"),
        "trigger_minutes": trigger.get("minutes"),
        "trigger_weeks": trigger.get("weeks"),
        "trigger_days": trigger.get("days"),
        "trigger_day_of_month": trigger.get("day_of_month"),
        "timezone": config.get("timezone"),
        "destination_kind": destination.get("kind"),
        "destination_target": destination.get("channel") or destination.get("address"),
        **question_routing.form_values(config),
    }
    return {key: value for key, value in values.items() if value not in (None, "")}


def trigger_values(content: dict[str, Any]) -> dict[str, Any]:
    """Return the schedule keys of the configuration form's content: trigger_time -> time."""
    return {
        key.removeprefix("trigger_"): value
        for key, value in content.items()
        if key.startswith("trigger_")
    }


def form_values_to_config(content: dict[str, Any]) -> dict[str, Any]:
    """Return the configuration for submitted form content; raise ConfigFormError if incomplete."""
    errors: dict[str, str] = {}
    name = _clean_name(content.get("name"))
    if name is None:
        errors["name"] = f"Give the agent a name of up to {MAX_NAME_CHARS} characters."
    purpose = redact_secrets(_as_text(content.get("purpose")))[0] or None
    if purpose and len(purpose) > MAX_PURPOSE_CHARS:
        errors["purpose"] = f"Keep the purpose under {MAX_PURPOSE_CHARS} characters."
    instructions = content.get("instructions")
    if isinstance(instructions, str):
        instructions = redact_secrets(instructions.strip())[0] or None
    else:
        instructions = None
    platform = content.get("platform")
    if catalog.find(catalog.PLATFORMS, platform) is None:
        errors["platform"] = "Choose one of the listed platforms."
    trigger, parts, problem = check_trigger(trigger_values(content))
    if problem:
        errors[f"trigger_{missing_key(parts)}"] = problem
    timezone = content.get("timezone")
    if not catalog.is_timezone(timezone):
        errors["timezone"] = "Choose one of the listed time zones."
    destination, parts, problem = parse_destination(
        content.get("destination_kind"), content.get("destination_target")
    )
    if problem:
        errors["destination_target" if parts else "destination_kind"] = problem
    routing, problems = question_routing.read(content)
    errors |= problems
    if errors:
        raise ConfigFormError(errors)
    config = {
        "name": name,
        "purpose": purpose,
        "instructions": instructions,
        "platform": platform,
        "trigger": trigger,
        "timezone": timezone,
        "destination": destination,
        # Derived, never taken from the form: what the platform and destination need.
        "tools": catalog.tools_for(platform, destination["kind"]),
    }
    if routing:  # the owner, when absent
        config["routing"] = routing
    return config


def config_problems(content: dict[str, Any], owner=None) -> dict[str, str]:
    """Return what is wrong with a whole configuration form, by field; empty when it is valid.

    The config card calls this when the person (`owner`) accepts or edits it, so rules a flat
    schema cannot state (an email address for an email destination, a Slack channel for Slack,
    a group its questions may go to) are shown next to the fields, with everything typed kept.
    """
    try:
        config = form_values_to_config(content)
    except ConfigFormError as problems:
        return problems.errors
    return question_routing.problems(config, owner)


def config_layout(values: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """Group the configuration form (what, when, where), keeping only the fields that apply
    to the chosen schedule and destination."""
    kind = values.get("trigger_kind")
    when = [f"trigger_{key}" for key in NEEDS.get(kind, ())]
    if kind == "times_a_day":
        when.append("trigger_weekdays_only")
    destination = catalog.find(catalog.DESTINATIONS, values.get("destination_kind"))
    needs_target = isinstance(destination, catalog.Destination) and destination.target
    return [
        ("What", ["name", "purpose", "instructions", "platform"]),
        ("When", ["trigger_kind", *when, "timezone"]),
        ("Where", ["destination_kind", *(["destination_target"] if needs_target else [])]),
        ("Who answers its questions", question_routing.layout(values)),
    ]


CONFIG_CONTROLS = ("trigger_kind", "destination_kind", "questions_to")


def tools_summary(config: dict[str, Any]) -> str:
    """Return the configuration's tools by their titles, for the card to show read-only."""
    titles = {option.value: option.title for option in catalog.TOOLS}
    return ", ".join(titles.get(tool, tool) for tool in config.get("tools") or [])

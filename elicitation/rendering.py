"""Render a part as HTML: the partial of its kind's template that matches its state.

Fragments never depend on the request, so the same HTML serves a page load, a settle
response, a websocket push and the admin.
"""

import json

from django.template.loader import render_to_string
from django.urls import reverse

from elicitation.kinds import kind_for
from elicitation.models import Part
from elicitation.zones import zone_of


def part_context(
    part: Part,
    *,
    submitted: dict[str, list[str]] | None = None,
    errors: dict[str, str] | None = None,
    editing: bool = False,
    disabled: bool = False,
    reply: str = "",
    notice: str = "",
    preview_url: str = "",
    corrected: bool = False,
) -> dict:
    """Return the template context for a part in its current state.

    An unsaved part (the workbench's preview) posts its answers to `preview_url`. A degraded
    part the agent `corrected` (it asked again, and that could be shown) is folded away.
    """
    kind = kind_for(part.render_kind, part.tool_name)
    known = kind is not None and part.state != Part.State.DEGRADED
    stored = part.pk is not None
    context = {
        "part": part,
        "settle_url": reverse("settle_part", args=[part.pk]) if stored else preview_url,
        "edit_url": reverse("edit_part", args=[part.pk]) if stored else "",
        "part_template": f"{kind.template}#{part.state}"
        if known
        else "elicitation/kinds/degraded.html#degraded",
        "kind_label": kind.label if kind else "Question from",
        "agent_name": part.asker or part.conversation.agent.name,
        "owner_name": part.conversation.owner.get_username(),
        # A routed question's dates and times read in the owner's zone: it says so.
        "has_times": any(
            field.get("format") in ("date", "date-time")
            for field in (part.normalized or {}).get("fields", [])
        ),
        "errors": errors or {},
        "form_error": (errors or {}).get("", ""),
        "editing": editing,
        "disabled": disabled,
        "reply": reply,
        "notice": notice,
        "corrected": corrected and part.state == Part.State.DEGRADED,
        "allows": set(part.allowed_actions or []),
        "zone": zone_of(part.conversation.owner),
        # The admin shows the part disabled, beside its own record of the payload and times.
        "wire_url": reverse("part_wire", args=[part.pk]) if stored and not disabled else "",
    }
    if known and part.normalized is not None:
        context |= kind.context(part, submitted, errors)
    return context


def wire_context(part: Part) -> dict:
    """Return what travelled for a part, for its "Show wire": the request as sent and as read
    and the envelope as readable JSON (those that exist yet), and when each step happened."""
    sides = [
        ("Request, as the agent sent it", part.payload),
        ("Normalized request", part.normalized),
        ("Envelope the agent received", part.response),
    ]
    return {
        "wire": [
            (label, json.dumps(value, indent=2, ensure_ascii=False))
            for label, value in sides
            if value is not None
        ],
        "wire_times": [
            ("Asked", part.created_at),
            ("Shown", part.pushed_at),
            ("Answered", part.settled_at),
            ("Resumed", part.resumed_at),
        ],
        "zone": zone_of(part.conversation.owner),
    }


def render_part_html(part: Part, **options) -> str:
    """Return the HTML of a part (its whole `<article>`), as every surface shows it."""
    return render_to_string("elicitation/part.html", part_context(part, **options))

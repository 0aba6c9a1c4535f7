"""Render a part as HTML: the partial of its kind's template that matches its state.

Fragments never depend on the request, so the same HTML serves a page load, a settle
response, a websocket push and the admin.
"""

from django.template.loader import render_to_string

from elicitation.contract import ElicitationRequest
from elicitation.forms import answer_rows, build_widgets
from elicitation.kinds import kind_for
from elicitation.models import Part

FORM_KINDS = ("elicitation", "config-card")


def part_context(
    part: Part,
    *,
    submitted: dict[str, list[str]] | None = None,
    errors: dict[str, str] | None = None,
    editing: bool = False,
    disabled: bool = False,
    reply: str = "",
    notice: str = "",
) -> dict:
    """Return the template context for a part in its current state."""
    kind = kind_for(part.render_kind, part.tool_name)
    known = kind is not None and part.state != Part.State.DEGRADED
    template = kind.template if known else "elicitation/kinds/degraded.html"
    context = {
        "part": part,
        "part_template": f"{template}#{part.state if known else 'degraded'}",
        "agent_name": part.conversation.agent.name,
        "errors": errors or {},
        "form_error": (errors or {}).get("", ""),
        "editing": editing or bool(errors and part.render_kind == "config-card"),
        "disabled": disabled,
        "reply": reply,
        "notice": notice,
        "allows": set(part.allowed_actions or []),
    }
    if known and part.render_kind in FORM_KINDS and part.normalized:
        request = ElicitationRequest.from_dict(part.normalized)
        context["request"] = request
        context["widgets"] = build_widgets(part, request, submitted, errors)
        response = part.response or {}
        if response.get("action") == "accept":
            content, redacted = response.get("content") or {}, response.get("redacted") or ()
            context["rows"] = answer_rows(request, content, redacted)
        elif part.render_kind == "config-card" and isinstance(part.value, dict):
            context["rows"] = answer_rows(request, part.value)
    return context


def render_part(part: Part, **options) -> str:
    """Return the HTML of a part (its whole `<article>`), as every surface shows it."""
    return render_to_string("elicitation/part.html", part_context(part, **options))

"""The workbench: edit a payload, see the chat's form, its diagnostics and its envelope live.

Nothing is stored except by "Ask this in a chat", which starts a Schema tester conversation.
"""

import json

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import reswap, retarget

from elicitation import contract
from elicitation.kinds import Answer, Refusal
from elicitation.mcp_wire import degraded_error, elicit_result
from elicitation.models import Part
from elicitation.rendering import render_part_html
from elicitation.secrets import redact_secrets
from elicitation.widgets import form_data
from elicitation.zones import zone_of
from playground.chat.views import MAX_MESSAGE_CHARS, HtmxHttpRequest, queue_run
from playground.runs.models import Agent, Conversation
from playground.workbench.copy_as import as_pydantic, as_typescript
from playground.workbench.examples import examples
from playground.workbench.preview import (
    MCP_REQUEST_ID,
    answer_part,
    field_map,
    mcp_request,
    preview_part,
)
from playground.workbench.reading import (
    MAX_TEXT_BYTES,
    locate,
    read_payload,
    too_big,
    too_much_to_send,
)

TEMPLATE = "workbench/page.html"
FIRST_EXAMPLE = "every-field-kind"
SCHEMA_TESTER = "schema-tester"
TYPE_AN_ANSWER = 'Type the answer as a JSON object, like {"name": "Ada"}.'
NOT_SENT = "Nothing would reach the agent yet: the form shows what to fix."
CANNOT_ANSWER = "This payload cannot be shown, so it cannot be answered."


def _pretty(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _results(request: HttpRequest, text: str) -> dict:
    """Return what the page shows for the editor's text: diagnostics, and a preview if it reads."""
    reading = read_payload(text)
    context = {"reading": reading, "text": text}
    if not reading.ok:
        return context
    parsed = contract.parse_request(reading.payload)
    part = preview_part(reading.payload, parsed, request.user)
    context |= {
        "part_html": _preview_html(part),
        "mcp_request": _pretty(mcp_request(reading.payload)),
    }
    if isinstance(parsed, contract.Degraded):
        return context | {
            "degraded": parsed,
            "degraded_at": locate(text, parsed.pointer),
            "agent_error": parsed.error_text(),
            "mcp_error": _pretty(degraded_error(parsed.reason, MCP_REQUEST_ID)),
        }
    return context | {
        "parsed": parsed,
        "warnings": [(warning, locate(text, warning.pointer)) for warning in parsed.warnings],
        "fields": field_map(parsed),
        "normalized": _pretty(part.normalized),
        "pydantic": as_pydantic(parsed),
        "typescript": as_typescript(reading.payload),
    }


def _preview_html(part: Part, **options) -> str:
    """Return the previewed part as the chat shows it; its form posts here, to the workbench."""
    return render_part_html(part, preview_url=reverse("workbench"), **options)


def _answerable(request: HttpRequest) -> Part | HttpResponse:
    """Return the previewed part of the posted payload, or the response saying it cannot be."""
    reading = read_payload(request.POST.get("payload", ""))
    if not reading.ok:
        return _problem(request, reading.problem)
    parsed = contract.parse_request(reading.payload)
    if isinstance(parsed, contract.Degraded):
        return _problem(request, CANNOT_ANSWER)
    return preview_part(reading.payload, parsed, request.user)


def _envelope(envelope: dict) -> dict:
    """Return an envelope as the agent here receives it and as an MCP server would."""
    return {"envelope": _pretty(envelope), "mcp_result": _pretty(elicit_result(envelope))}


@login_required
@require_http_methods(["GET", "POST"])
def workbench(request: HtmxHttpRequest) -> HttpResponse:
    # The preview's form has no address of its own (its part is not stored): it posts here.
    if request.method == "POST":
        return _try_it(request)
    menu = examples()
    chosen = menu.get(request.GET.get("example", ""), menu[FIRST_EXAMPLE])
    return _page(request, chosen.text, chosen=chosen)


def _page(request: HttpRequest, text: str, *, status: int = 200, **extra) -> HttpResponse:
    context = _results(request, text) | {
        "examples": examples().values(),
        # A text past Django's request limit would not reach a view: the script stops it.
        "max_text_bytes": MAX_TEXT_BYTES,
        "too_big": too_big("{size}"),
        "max_request_bytes": settings.DATA_UPLOAD_MAX_MEMORY_SIZE,
        "too_much": too_much_to_send("{size}"),
    }
    return TemplateResponse(request, TEMPLATE, context | extra, status=status)


@login_required
@require_POST
def preview(request: HtmxHttpRequest) -> HttpResponse:
    """Return the diagnostics, and the refreshed preview when the text reads as JSON."""
    context = _results(request, request.POST.get("payload", ""))
    response = TemplateResponse(request, f"{TEMPLATE}#refresh", context)
    # Text that is not JSON keeps the last good preview (greyed out by its state note).
    return response if context["reading"].ok else reswap(response, "none")


def _try_it(request: HtmxHttpRequest) -> HttpResponse:
    part = _answerable(request)
    if isinstance(part, HttpResponse):
        return part
    answer = Answer(
        action=request.POST.get("action", ""),
        fields=form_data(request.POST),
        text=request.POST.get("text", ""),
        zone=zone_of(request.user).key,
    )
    envelope = answer_part(part, answer)
    if isinstance(envelope, Refusal):
        html = _preview_html(
            part, submitted=answer.fields, errors=envelope.errors, reply=answer.text
        )
        context = {"part_html": html, "envelope_problem": NOT_SENT}
        return TemplateResponse(request, f"{TEMPLATE}#tried", context, status=envelope.status)
    context = {"part_html": _preview_html(part)} | _envelope(envelope)
    return TemplateResponse(request, f"{TEMPLATE}#tried", context)


@login_required
@require_POST
def typed_answer(request: HtmxHttpRequest) -> HttpResponse:
    """Check an answer typed as JSON content, as an agent's client would send it."""
    part = _answerable(request)
    if isinstance(part, HttpResponse):
        return part
    content = read_payload(request.POST.get("content", ""), empty=TYPE_AN_ANSWER)
    if not content.ok:
        return _problem(request, content.problem)
    parsed = contract.ElicitationRequest.from_dict(part.normalized)
    result = contract.validate_content(parsed, content.payload)
    if not result.ok:
        errors = {_label(parsed, name): error for name, error in result.errors.items()}
        context = {"typed_errors": errors}
        return TemplateResponse(request, f"{TEMPLATE}#envelope", context, status=422)
    envelope = contract.accept(result.content, redacted=result.redacted)
    return TemplateResponse(request, f"{TEMPLATE}#envelope", _envelope(envelope))


def _label(parsed: contract.ElicitationRequest, name: str) -> str:
    """Return how a person knows a property: its label and name ("" is the whole answer)."""
    labels = {field.name: f"{field.label} ({field.name})" for field in parsed.fields}
    return labels.get(name, name or "The answer")


def _problem(request: HttpRequest, problem: str) -> HttpResponse:
    response = TemplateResponse(
        request, f"{TEMPLATE}#envelope", {"envelope_problem": problem}, status=422
    )
    return retarget(response, "#envelope")


@login_required
@require_POST
def ask_in_chat(request: HtmxHttpRequest) -> HttpResponse:
    """Start a Schema tester conversation whose first message is the editor's payload."""
    text = request.POST.get("payload", "")
    reading = read_payload(text)
    if reading.ok and len(text) > MAX_MESSAGE_CHARS:
        text = json.dumps(reading.payload, ensure_ascii=False, separators=(",", ":"))
    problem = reading.problem
    if not problem and len(text) > MAX_MESSAGE_CHARS:
        problem = (
            f"A chat message holds at most {MAX_MESSAGE_CHARS:,} characters, "
            f"and this payload is {len(text):,} even as compact JSON."
        )
    if problem:
        return _page(request, request.POST.get("payload", ""), status=422, chat_problem=problem)
    tester = get_object_or_404(Agent, slug=SCHEMA_TESTER, builtin=True)
    conversation = Conversation.objects.create(owner=request.user, agent=tester)
    conversation.add_turn(redact_secrets(text)[0], then=queue_run)
    return redirect(conversation)

"""The chat: home, a conversation page, and sending a message."""

from django.contrib.auth.decorators import login_required
from django.db.models import Case, Count, F, Q, When
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.middleware import HtmxDetails

from elicitation.access import login_required_inline
from elicitation.models import Part
from elicitation.secrets import redact_secrets
from elicitation.zones import zone_of
from playground.chat import chat_header, fragments
from playground.chat.push import push_html_soon
from playground.runs import wire
from playground.runs.agents import REGISTRY
from playground.runs.models import Agent, Conversation, Turn
from playground.runs.tasks import turn_queued

MAX_MESSAGE_CHARS = 20_000


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def get_conversation(request: HttpRequest, conversation_id: int) -> Conversation:
    """Return one of the person's conversations, or raise Http404 (also for someone else's)."""
    conversations = Conversation.objects.owned_by(request.user).select_related(
        "agent", "owner__time_zone"
    )
    return get_object_or_404(conversations, pk=conversation_id)


def agents_for(user):
    """Return the agents a person can chat with: the built-in ones and their own, less those
    whose implementation keeps them from this person (an MCP server for other groups)."""
    agents = Agent.objects.filter(Q(builtin=True) | Q(owner=user), is_draft=False)
    guarded = [spec.slug for spec in REGISTRY.values() if spec.available_to is not None]
    hidden = [
        agent.pk
        for agent in agents.filter(kind__in=guarded)
        if not REGISTRY[agent.kind].available_to(agent, user)
    ]
    return agents.exclude(pk__in=hidden)


def queue_run(turn: Turn) -> None:
    """After the commit that added a person's turn: get it run (`Conversation.add_turn`)."""
    turn_queued(turn.pk)


@login_required
@require_GET
def home(request: HtmxHttpRequest) -> HttpResponse:
    conversations = (
        Conversation.objects.filter(owner=request.user, agent__is_draft=False)
        .select_related("agent")
        .annotate(waiting=Count("parts", filter=Q(parts__state=Part.State.PENDING)))[:50]
    )
    # A wizard nobody has written in yet is not worth resuming.
    drafts = (
        Conversation.objects.filter(owner=request.user, agent__is_draft=True)
        .exclude(title="")
        .select_related("agent")
    )
    # The person's own agents first, newest first (the one just made on top); built-ins after.
    newest_own = Case(When(builtin=False, then=F("created_at"))).desc(nulls_last=True)
    agents = agents_for(request.user).order_by("builtin", newest_own, "name")
    # Someone who has not chatted yet sees what the playground does: one click to a question.
    tries = []
    if not conversations and not drafts:
        specs = [(agent, REGISTRY.get(agent.kind)) for agent in agents if agent.builtin]
        tries = [(agent, spec.samples[0]) for agent, spec in specs if spec and spec.samples]
    return TemplateResponse(
        request,
        "playground/home.html",
        {"agents": agents, "conversations": conversations, "drafts": drafts, "tries": tries},
    )


@login_required
@require_POST
def start_conversation(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    agent = get_object_or_404(agents_for(request.user), slug=slug)
    conversation = Conversation.objects.create(owner=request.user, agent=agent)
    spec = REGISTRY.get(agent.kind)
    # A sample tried from the home page is the conversation's first message.
    text, _ = redact_secrets(request.POST.get("text", "").strip()[:MAX_MESSAGE_CHARS])
    if text or (spec is not None and spec.opens_conversation):
        # Queued like a message's turn, so the page (and every reload) shows what it says.
        conversation.add_turn(text, then=queue_run)
    return redirect(conversation)


@login_required
@require_GET
def conversation_page(request: HtmxHttpRequest, conversation_id: int) -> HttpResponse:
    routed = Part.objects.routed_to(request.user).values("conversation")
    # The owner's, or one a question in it was asked of the person (read-only for them).
    conversations = Conversation.objects.filter(
        Q(owner=request.user) | Q(pk__in=routed)
    ).select_related("agent", "owner__time_zone")
    return render_conversation(request, get_object_or_404(conversations, pk=conversation_id))


def render_conversation(request: HttpRequest, conversation: Conversation) -> TemplateResponse:
    """Return the chat page of a conversation the person owns (also at an agent's address),
    or may read because they were asked a question in it (no composer then)."""
    draft = conversation.agent.is_draft  # still in the onboarding wizard
    spec = REGISTRY.get(conversation.agent.kind)
    turns = fragments.transcript(conversation, viewer=request.user)
    return TemplateResponse(
        request,
        "playground/onboarding.html" if draft else "playground/conversation.html",
        {"turns": turns, "samples": spec.samples if spec else ()}
        | chat_header.header_context(conversation, request.user, request.path)
        | fragments.status_context(conversation),
    )


@login_required_inline
@require_GET
def conversation_wire(request: HttpRequest, conversation_id: int) -> HttpResponse:
    """Show the messages exchanged with the conversation's server (its Wire panel)."""
    conversation = get_conversation(request, conversation_id)
    return TemplateResponse(
        request,
        "playground/wire_panel.html",
        {
            "conversation": conversation,
            "messages": wire.latest(conversation.pk),
            "shown": wire.SHOWN,
            "zone": zone_of(conversation.owner),
        },
    )


@login_required_inline
@require_POST
def send_message(request: HtmxHttpRequest, conversation_id: int) -> HttpResponse:
    conversation = get_conversation(request, conversation_id)
    text = request.POST.get("text", "").strip()
    error = ""
    if not text:
        error = "Write a message first."
    elif len(text) > MAX_MESSAGE_CHARS:
        error = f"That message is too long: keep it under {MAX_MESSAGE_CHARS:,} characters."
    if error:
        return TemplateResponse(
            request,
            "playground/conversation.html#composer",
            {"conversation": conversation, "text": request.POST.get("text", ""), "error": error},
            status=422,
        )
    text, redacted = redact_secrets(text)
    surface = Turn.Surface.TEXT if request.POST.get("surface") == "text" else "form"
    turn = conversation.add_turn(text, surface=surface, then=queue_run)
    turn_html = fragments.render_turn(turn)
    push_html_soon(conversation.pk, turn_html)
    if not request.htmx:
        return redirect(conversation)
    response = TemplateResponse(
        request,
        "playground/conversation.html#composer",
        {"conversation": conversation, "text": "", "redacted": redacted},
    )
    response.render()
    response.content += turn_html.encode()
    return response


@login_required_inline
@require_POST
def stop_turn(request: HtmxHttpRequest, conversation_id: int) -> HttpResponse:
    """Stop the agent's reply: the run lets go of its turn, and no one runs it again."""
    conversation = get_conversation(request, conversation_id)
    active = conversation.turns.filter(status__in=[Turn.Status.QUEUED, Turn.Status.RUNNING])
    for turn in active:
        # Clearing the run token takes the turn from its run: its next write finds it gone.
        if active.filter(pk=turn.pk).update(status=Turn.Status.STOPPED, run_token=""):
            turn.status = Turn.Status.STOPPED
            push_html_soon(conversation.pk, fragments.render_live_text(turn))
    push_html_soon(conversation.pk, fragments.render_status(conversation))
    return TemplateResponse(
        request, "playground/conversation.html#status", fragments.status_context(conversation)
    )

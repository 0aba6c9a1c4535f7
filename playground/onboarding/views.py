"""The wizard's pages: start a draft, an agent's page, its configuration as JSON, delete an agent
or a draft."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET, require_http_methods

from playground.chat.views import agents_for, render_conversation
from playground.onboarding import drafts
from playground.runs.models import Agent, Schedule


@login_required
@require_http_methods(["GET", "POST"])
def new_agent(request: HttpRequest) -> HttpResponse:
    """Open the wizard on a draft; an untouched one is reused, so a double click makes one."""
    return redirect(drafts.start_draft(request.user))


@login_required
@require_GET
def agent_page(request: HttpRequest, slug: str) -> HttpResponse:
    """Show the agent's chat: the person's latest conversation with it."""
    agent = get_object_or_404(agents_for(request.user), slug=slug)
    conversations = agent.conversations.owned_by(request.user)
    conversation = conversations.select_related("agent", "owner__time_zone").first()
    if conversation is None:
        return redirect("home")
    return render_conversation(request, conversation)


@login_required
@require_GET
def export_config(request: HttpRequest, slug: str) -> HttpResponse:
    """Download the configuration of one of the person's agents as JSON."""
    agent = get_object_or_404(Agent, slug=slug, owner=request.user, is_draft=False)
    response = JsonResponse(
        {"slug": agent.slug, **agent.config},
        json_dumps_params={"indent": 2, "ensure_ascii": False},
    )
    response["Content-Disposition"] = f'attachment; filename="{agent.slug}.json"'
    return response


@login_required
@require_http_methods(["GET", "POST"])
def delete_agent(request: HttpRequest, slug: str) -> HttpResponse:
    """Delete an agent the person made, once they confirm on this page (a draft at once), with
    its schedules and its conversations; anyone else's agent is a 404."""
    agent = get_object_or_404(Agent, slug=slug, owner=request.user)
    if request.method == "POST" and (agent.is_draft or "confirmed" in request.POST):
        agent.delete()  # its schedules go with it (no slot fires again), and its chats
        return redirect("home")
    context = {
        "agent": agent,
        "conversations": agent.conversations.count(),
        "schedule": Schedule.objects.filter(agent=agent).first(),
    }
    return TemplateResponse(request, "playground/delete_agent.html", context)

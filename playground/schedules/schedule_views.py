"""The agent page's schedule controls: turn on, pause, resume, run now (one person's schedule)."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRedirect

from playground.chat.views import agents_for
from playground.runs.models import Agent, Schedule
from playground.schedules import scheduler


def _agent(request: HttpRequest, slug: str) -> Agent:
    """Return an agent the person may chat with, or raise Http404 (also for someone else's)."""
    return get_object_or_404(agents_for(request.user), slug=slug)


def _schedule(request: HttpRequest, agent: Agent) -> Schedule:
    return get_object_or_404(Schedule, agent=agent, owner=request.user)


def _panel(request: HttpRequest, agent: Agent) -> HttpResponse:
    """Answer a button: the panel again for htmx, the agent's page otherwise."""
    if not request.htmx:
        return redirect("agent_page", agent.slug)
    panel = scheduler.overview(agent, request.user)
    return TemplateResponse(
        request, "playground/schedule_panel.html", {"agent": agent, "panel": panel}
    )


@login_required
@require_POST
def start_schedule(request: HttpRequest, slug: str) -> HttpResponse:
    """Give the person their own schedule of an agent that offers one (a built-in agent)."""
    agent = _agent(request, slug)
    plan = scheduler.plan_for(agent, request.user)
    if plan is None:
        raise Http404("This agent does not run on a schedule.")
    scheduler.set_schedule(agent, request.user, plan)
    return _panel(request, agent)


@login_required
@require_POST
def pause_schedule(request: HttpRequest, slug: str) -> HttpResponse:
    agent = _agent(request, slug)
    scheduler.pause(_schedule(request, agent))
    return _panel(request, agent)


@login_required
@require_POST
def resume_schedule(request: HttpRequest, slug: str) -> HttpResponse:
    agent = _agent(request, slug)
    scheduler.resume(_schedule(request, agent))
    return _panel(request, agent)


@login_required
@require_POST
def run_schedule_now(request: HttpRequest, slug: str) -> HttpResponse:
    """Start a run at once and show it in the Runs conversation."""
    agent = _agent(request, slug)
    turn = scheduler.run_now(_schedule(request, agent))
    url = turn.conversation.get_absolute_url()
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)

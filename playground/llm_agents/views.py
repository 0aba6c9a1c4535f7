"""Make an LLM agent (pick a configured model, write its instructions, start chatting), and
edit one you made."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods

from playground.llm_agents import providers
from playground.llm_agents.agent import KIND
from playground.llm_agents.forms import LlmAgentForm
from playground.onboarding.drafts import unique_slug
from playground.runs.models import Agent, Conversation


@login_required
@require_http_methods(["GET", "POST"])
def new_llm_agent(request: HttpRequest) -> HttpResponse:
    if not providers.choices():
        return _not_configured(request)
    form = LlmAgentForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        agent = Agent.objects.create(
            slug=unique_slug(form.cleaned_data["name"]),
            name=form.cleaned_data["name"],
            description=_description(form),
            kind=KIND,
            config=form.config(),
            owner=request.user,
        )
        conversation = Conversation.objects.create(owner=request.user, agent=agent)
        return redirect(conversation)
    status = 422 if request.method == "POST" else 200
    return TemplateResponse(request, "llm_agents/new.html", {"form": form}, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def edit_llm_agent(request: HttpRequest, slug: str) -> HttpResponse:
    agent = _get_own_llm_agent(request, slug)
    if not providers.choices():
        return _not_configured(request)
    back = request.POST.get("next") or request.GET.get("next") or ""
    if not url_has_allowed_host_and_scheme(back, {request.get_host()}, request.is_secure()):
        back = ""
    initial = LlmAgentForm.initial_from(agent)
    form = LlmAgentForm(request.POST or None, initial=initial, user=request.user)
    if request.method == "POST" and form.is_valid():
        if agent.description == f"Answers with {agent.config.get('model')}.":
            agent.description = _description(form)  # (a wizard-made agent's own is kept)
        agent.name = form.cleaned_data["name"]
        agent.config = form.config(keep=agent.config)
        agent.save(update_fields=["name", "description", "config"])
        return redirect(back or "home")
    context = {
        "form": form,
        "agent": agent,
        "next": back,
        # A model the deployment no longer offers: the select cannot show it, so say so.
        "gone": initial["model"] if initial["model"] not in dict(providers.choices()) else "",
    }
    status = 422 if request.method == "POST" else 200
    return TemplateResponse(request, "llm_agents/edit.html", context, status=status)


def _get_own_llm_agent(request: HttpRequest, slug: str) -> Agent:
    # Someone else's agent, or one that is not an LLM agent, is not there for this person.
    agent = get_object_or_404(Agent, slug=slug, kind=KIND, is_draft=False)
    if agent.owner_id != request.user.pk:
        raise Http404("No such agent.")
    return agent


def _not_configured(request: HttpRequest) -> HttpResponse:
    context = {"help": providers.SETUP_HELP, "example": providers.LOCAL_EXAMPLE}
    return TemplateResponse(request, "llm_agents/not_configured.html", context)


def _description(form: LlmAgentForm) -> str:
    return f"Answers with {form.cleaned_data['model'].split('/', 1)[1]}."

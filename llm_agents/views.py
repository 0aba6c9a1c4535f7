"""Make an LLM agent: pick a configured model, write its instructions, start chatting."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.views.decorators.http import require_http_methods

from llm_agents import providers
from llm_agents.agent import KIND
from llm_agents.forms import LlmAgentForm
from playground.models import Agent, Conversation
from playground.onboarding.drafts import unique_slug


@login_required
@require_http_methods(["GET", "POST"])
def new_llm_agent(request: HttpRequest) -> HttpResponse:
    if not providers.choices():
        context = {"help": providers.SETUP_HELP, "example": providers.LOCAL_EXAMPLE}
        return TemplateResponse(request, "llm_agents/not_configured.html", context)
    form = LlmAgentForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        agent = Agent.objects.create(
            slug=unique_slug(form.cleaned_data["name"]),
            name=form.cleaned_data["name"],
            description=f"Answers with {form.cleaned_data['model'].split('/', 1)[1]}.",
            kind=KIND,
            config=form.config(),
            owner=request.user,
        )
        conversation = Conversation.objects.create(owner=request.user, agent=agent)
        return redirect(conversation)
    status = 422 if request.method == "POST" else 200
    return TemplateResponse(request, "llm_agents/new.html", {"form": form}, status=status)

"""Send a person who has nothing yet straight to the onboarding wizard, once a session."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect

from playground.models import Agent, Conversation

SESSION_KEY = "onboarding_offered"


def first_run_redirect(request: HttpRequest) -> HttpResponse | None:
    """Return a redirect to the wizard for someone with no agents and no conversations, else None.

    Only once a session, so the home page stays reachable even for someone who deletes the
    draft without making anything.
    """
    user = request.user
    if request.session.get(SESSION_KEY):
        return None
    has_something = (
        Agent.objects.filter(owner=user).exists()
        or Conversation.objects.filter(owner=user).exists()
    )
    if has_something:
        return None
    request.session[SESSION_KEY] = True
    return redirect("new_agent")

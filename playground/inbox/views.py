"""The inbox page, and the link straight to one question."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET

from elicitation.models import Part
from playground.inbox import queries
from playground.inbox.items import item_context, parts_for_items

MAX_ITEMS = 200


@login_required
@require_GET
def inbox_page(request: HttpRequest) -> HttpResponse:
    filters = queries.Filters.read(request.GET)
    waiting = queries.waiting_for(request.user, filters)
    parts = parts_for_items(waiting)[:MAX_ITEMS]
    agents = (
        queries.waiting_for(request.user)
        .order_by()
        .values_list("conversation__agent__slug", "conversation__agent__name")
        .distinct()
    )
    context = {
        "items": [item_context(part, request.user) for part in parts],
        "total": waiting.count(),
        "filters": filters,
        "agents": sorted(set(agents), key=lambda agent: agent[1].lower()),
        "kinds": [(key, label) for key, (label, _) in queries.KINDS.items()],
        "scopes": list(queries.SCOPES.items()),
        "live_query": request.GET.urlencode(),
    }
    return TemplateResponse(request, "inbox/page.html", context)


@login_required
@require_GET
def question(request: HttpRequest, part_id: int) -> HttpResponse:
    """Open the conversation at one question: the link an inbox item or an email gives.

    The link grants nothing: someone who may not see the question gets 404.
    """
    parts = Part.objects.visible_to(request.user).select_related("conversation")
    part = get_object_or_404(parts, pk=part_id)
    return redirect(f"{part.conversation.get_absolute_url()}#{part.dom_id}")

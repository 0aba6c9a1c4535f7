"""The vault's views: a `connection` card's form, and the Connections page.

A card's credential posts here (`connect_part`), never to the part's settle endpoint: this view
checks it with the service's test request, seals it, and settles the part with a reference.
The views that send a test request are async, so a slow service holds no thread.
Every POST is CSRF-checked (Django's middleware) and acts only on the person's own rows.
"""

import uuid

from asgiref.sync import sync_to_async
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_GET, require_POST

from elicitation.access import LOGGED_OUT, refused
from elicitation.kinds import connection as connection_kind
from elicitation.models import Part
from elicitation.rendering import render_part_html
from elicitation.settle import settle_part
from playground.connections import checks, oauth, services, signin, vault
from playground.connections.models import Connection, ConnectionGoneError, use

ALREADY_SETTLED = "This question was already answered, so nothing was connected."
NOT_SAVED = " Nothing was saved."
NO_LONGER_THERE = "That connection was revoked meanwhile: connect it again below."


def _pending_part(user, part_id: int) -> Part:
    parts = Part.objects.owned_by(user).select_related(
        "conversation__agent", "conversation__owner__time_zone", "settled_by"
    )
    return get_object_or_404(parts, pk=part_id, render_kind=connection_kind.NAME)


def _fragment(part: Part, status: int = 200, **options) -> HttpResponse:
    return HttpResponse(render_part_html(part, **options), status=status)


def _connect(user, part: Part, connection: Connection) -> HttpResponse:
    html = settle_part(part, {"action": "accept", "content": connection.reference}, user=user)
    if html is None:  # another tab answered first
        part.refresh_from_db()
        return _fragment(part, status=409, notice=ALREADY_SETTLED)
    return HttpResponse(html)


@sensitive_post_parameters()
@require_POST
async def connect_part(request: HttpRequest, part_id: int) -> HttpResponse:
    """Keep the credential a card's form sent (or take an existing one), then settle the card."""
    user = await request.auser()
    if not user.is_authenticated:
        return HttpResponse(LOGGED_OUT, status=401, content_type="text/plain")
    part = await sync_to_async(_pending_part)(user, part_id)
    if not part.is_pending:
        return await sync_to_async(_fragment)(part, status=409, notice=ALREADY_SETTLED)
    refuse = sync_to_async(_fragment)
    try:
        service = await sync_to_async(services.get)(part.normalized["service"])
    except (services.UnknownServiceError, services.ServicesFileError) as error:
        return await refuse(part, status=422, errors={"": str(error)})
    if used := request.POST.get("use"):
        connection = None
        if _is_uuid(used):
            mine = Connection.objects.owned_by(user).filter(service=service.name, pk=used)
            connection = await mine.afirst()
        if connection is None:
            return await refuse(part, status=422, errors={"": NO_LONGER_THERE})
        return await sync_to_async(_connect)(user, part, connection)
    if service.oauth:
        return await _sign_in(request, user, service, part)
    values, label, errors = checks.read_credential(service, request.POST)
    kept = checks.kept_fields(service, request.POST)
    if errors:
        return await refuse(part, status=422, submitted=kept, errors=errors)
    try:
        vault.keys()  # before the credential goes anywhere, even to its service's test
    except vault.VaultError as error:  # said beside the form, which keeps what was typed
        return refused(str(error), status=503)
    if problem := await checks.check(service, values):
        return await refuse(part, status=422, submitted=kept, errors={"": problem + NOT_SAVED})
    connection = await sync_to_async(Connection.store)(user, service.name, label, values)
    return await sync_to_async(_connect)(user, part, connection)


async def _sign_in(request: HttpRequest, user, service, part: Part | None) -> HttpResponse:
    """Send the person to the provider's sign-in page; the callback finishes (nothing waits)."""
    label = request.POST.get("label", "").strip() or service.title
    if len(label) > checks.MAX_LABEL_CHARS:
        problem = f"Keep the name under {checks.MAX_LABEL_CHARS} characters."
    else:
        try:
            url = await signin.begin(
                user,
                service,
                label=label,
                part=part,
                redirect_uri=request.build_absolute_uri(reverse("oauth_callback")),
            )
        except (oauth.OAuthFlowError, vault.VaultError) as error:
            problem = str(error)
        else:
            if request.headers.get("HX-Request"):
                return HttpResponse(status=204, headers={"HX-Redirect": url})
            return redirect(url)
    problem = f"{service.title}: {problem}{NOT_SAVED}"
    if part is None:
        await sync_to_async(messages.error)(request, problem)
        return redirect("connections")
    return await sync_to_async(_fragment)(part, status=422, errors={"": problem})


@login_required
@require_GET
async def oauth_callback(request: HttpRequest) -> HttpResponse:
    """Where the provider sends the person back: finish the sign-in, then show where it began."""
    user = await request.auser()
    try:
        connection, started = await signin.finish(user, request.GET)
    except (oauth.OAuthFlowError, vault.VaultError) as error:
        return await sync_to_async(TemplateResponse)(
            request, "connections/signin_failed.html", {"problem": str(error)}, status=400
        )
    if started.part_id is None:
        await sync_to_async(messages.success)(
            request, f"Connected {connection.service} “{connection.label}”."
        )
        return redirect("connections")
    part = await sync_to_async(_pending_part)(user, started.part_id)
    if part.is_pending:
        await sync_to_async(settle_part)(
            part, {"action": "accept", "content": connection.reference}, user=user
        )
    return redirect(f"{reverse('conversation', args=[part.conversation_id])}#{part.dom_id}")


def _is_uuid(text: str) -> bool:
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


@login_required
@require_GET
def connections_page(request: HttpRequest) -> TemplateResponse:
    """List the person's connections, and the services they can connect."""
    try:
        declared, problem = services.load(), ""
    except services.ServicesFileError as error:
        declared, problem = {}, str(error)
    try:
        vault.keys()  # without a usable key nothing can be connected: said before anyone types
    except vault.VaultError as error:
        problem = problem or str(error)
    connections = list(Connection.objects.owned_by(request.user))
    for connection in connections:
        known = declared.get(connection.service)
        connection.title = known.title if known else connection.service
    return TemplateResponse(
        request,
        "connections/page.html",
        {"connections": connections, "services": list(declared.values()), "problem": problem},
    )


@sensitive_post_parameters()
@require_POST
async def new_connection(request: HttpRequest, service_name: str) -> HttpResponse:
    """Connect a service from the Connections page (checked like a card's credential)."""
    user = await request.auser()
    if not user.is_authenticated:
        return redirect("login")
    try:
        service = await sync_to_async(services.get)(service_name)
    except (services.UnknownServiceError, services.ServicesFileError):
        raise Http404("No such service.") from None
    if service.oauth:
        return await _sign_in(request, user, service, None)
    values, label, errors = checks.read_credential(service, request.POST)
    problem = next(iter(errors.values()), "")
    try:
        vault.keys()  # before the credential goes anywhere, even to its service's test
    except vault.VaultError as error:
        problem = problem or str(error)
    if not problem and (problem := await checks.check(service, values)):
        problem += NOT_SAVED
    if not problem:
        await sync_to_async(Connection.store)(user, service.name, label, values)
    if problem:
        await sync_to_async(messages.error)(request, f"{service.title}: {problem}")
    else:
        await sync_to_async(messages.success)(request, f"Connected {service.title} “{label}”.")
    return redirect("connections")


@sensitive_post_parameters()
@require_POST
async def test_connection(request: HttpRequest, connection_id) -> HttpResponse:
    """Send the service's test request with a connection's credential now."""
    user = await request.auser()
    if not user.is_authenticated:
        return redirect("login")
    connection = await Connection.objects.owned_by(user).filter(pk=connection_id).afirst()
    if connection is None:
        raise Http404("No such connection.")
    try:
        service = await sync_to_async(services.get)(connection.service)
        values = (await sync_to_async(use)(user, connection.pk)).values  # (renewed if due)
    except (
        services.UnknownServiceError,
        services.ServicesFileError,
        vault.VaultError,
        ConnectionGoneError,
    ) as error:
        problem = str(error)
    else:
        if not service.test_url:
            problem = f"{service.title} declares no test request, so it cannot be checked here."
        else:
            problem = await checks.check(service, values)
    if problem:
        await sync_to_async(messages.error)(request, f"“{connection.label}”: {problem}")
    else:
        await Connection.objects.filter(pk=connection.pk).aupdate(last_tested_at=timezone.now())
        await sync_to_async(messages.success)(request, f"“{connection.label}” works.")
    return redirect("connections")


@login_required
@require_POST
def rename_connection(request: HttpRequest, connection_id) -> HttpResponse:
    connection = get_object_or_404(Connection.objects.owned_by(request.user), pk=connection_id)
    label = request.POST.get("label", "").strip()
    if not label or len(label) > checks.MAX_LABEL_CHARS:
        messages.error(request, f"A name is 1 to {checks.MAX_LABEL_CHARS} characters.")
    else:
        Connection.objects.filter(pk=connection.pk).update(label=label)
        messages.success(request, f"Renamed “{connection.label}” to “{label}”.")
    return redirect("connections")


@require_POST
async def revoke_connection(request: HttpRequest, connection_id) -> HttpResponse:
    """Delete a connection: every agent that holds its reference loses it at once. An OAuth
    connection's tokens are revoked at the provider too, where it offers that."""
    user = await request.auser()
    if not user.is_authenticated:
        return redirect("login")
    connection = await Connection.objects.owned_by(user).filter(pk=connection_id).afirst()
    if connection is None:
        raise Http404("No such connection.")
    unconfirmed = await signin.revoke_at_provider(connection)
    await connection.adelete()
    text = f"Revoked “{connection.label}”: no agent can use it any more."
    if unconfirmed:
        text += f" The provider did not confirm revoking its tokens ({unconfirmed})."
    await sync_to_async(messages.success)(request, text)
    return redirect("connections")

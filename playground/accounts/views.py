"""Logging in and out: the login page (local login and "Sign in with <provider>"), the
OpenID Connect start and callback, and logging out here and, where it offers it, at the
provider too."""

import logging

from django.conf import settings
from django.contrib import admin
from django.contrib.auth import authenticate, login, logout
from django.contrib.auth import views as auth_views
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render, resolve_url
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_POST

from playground.accounts import oidc
from playground.accounts.people import Refusal, refusal
from playground.accounts.proxy import SESSION_KEY

log = logging.getLogger(__name__)

NEXT_KEY = "sign_on_next"


def login_page(request: HttpRequest) -> HttpResponse:
    """The login page: the provider's button where one is configured, the local form unless
    LOCAL_LOGIN is off (then it takes no password at all)."""
    context = {
        "local": not settings.PRODUCTION,
        "local_login": settings.LOCAL_LOGIN,
        "provider": oidc.provider_name() if oidc.enabled() else "",
    }
    methods = ["get", "head", "post", "options"] if settings.LOCAL_LOGIN else ["get", "head"]
    view = auth_views.LoginView.as_view(extra_context=context, http_method_names=methods)
    return view(request)


def admin_login(request: HttpRequest) -> HttpResponse:
    """The admin's login form, or with LOCAL_LOGIN off (no password taken) the login page."""
    if settings.LOCAL_LOGIN:
        return admin.site.login(request)
    return redirect_to_login(request.GET.get("next", ""), resolve_url(settings.LOGIN_URL))


def _safe_next(request: HttpRequest, url: str) -> str:
    allowed = url_has_allowed_host_and_scheme(
        url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return url if allowed else resolve_url(settings.LOGIN_REDIRECT_URL)


def _refused(request: HttpRequest, refused: Refusal, status: int = 403) -> HttpResponse:
    log.info("Sign-on refused: %s", refused.title)
    return render(request, "accounts/refused.html", {"refusal": refused}, status=status)


@require_GET
def oidc_start(request: HttpRequest) -> HttpResponse:
    """Send the person to the provider's sign-in page."""
    if not oidc.enabled():
        return HttpResponse(status=404)
    request.session[NEXT_KEY] = _safe_next(request, request.GET.get("next", ""))
    try:
        return oidc.start(request, request.build_absolute_uri(reverse("oidc_callback")))
    except oidc.SignOnError as error:
        return _refused(request, Refusal("Signing in is not possible right now", str(error)), 503)


@require_GET
def oidc_callback(request: HttpRequest) -> HttpResponse:
    """Back from the provider: check everything, then sign the person in."""
    if not oidc.enabled():
        return HttpResponse(status=404)
    try:
        person = oidc.finish(request)
    except oidc.SignOnError as error:
        return _refused(request, Refusal("You are not signed in", str(error)))
    refused = refusal(person, oidc.provider_name())
    if refused is not None:
        return _refused(request, refused)
    user = authenticate(request, person=person)
    if user is None:
        return _refused(request, Refusal("You are not signed in", "Signing in failed here."))
    next_url = request.session.pop(NEXT_KEY, "")
    login(request, user)
    request.session[SESSION_KEY] = "oidc"
    return HttpResponseRedirect(_safe_next(request, next_url))


@require_POST
def logout_view(request: HttpRequest) -> HttpResponse:
    """Log out here; after a provider's sign-in, end the session there too where it can."""
    signed_on = request.session.get(SESSION_KEY)
    logout(request)
    login_url = resolve_url(settings.LOGOUT_REDIRECT_URL)
    if signed_on != "oidc" or not oidc.enabled():
        return HttpResponseRedirect(login_url)
    end_session = oidc.end_session_url(request.build_absolute_uri(login_url))
    if end_session:
        return HttpResponseRedirect(end_session)
    return render(request, "accounts/logged_out.html", {"provider": oidc.provider_name()})

"""The API tokens page: create (the key is shown once), list and revoke your tokens.

Creating is Post/Redirect/Get: the POST makes the token and redirects to the page, so a reload
shows the list and never makes a second token. The key waits in the session for that one GET,
which takes it out; it never goes in a URL.
"""

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.views.decorators.http import require_http_methods, require_POST

from playground.api.models import ApiToken
from playground.api.tokens import create_token, revoke, signing_secret
from playground.api.webhooks import UnsafeURLError, check_url

NEW_KEY = "api_tokens.new_key"  # in the session between the POST and the page it redirects to


class TokenForm(forms.Form):
    name = forms.CharField(max_length=80, help_text="What uses it, e.g. “deploy bot”.")
    webhook_url = forms.URLField(
        label="Webhook URL (optional)",
        required=False,
        max_length=500,
        assume_scheme="https",
        help_text="We POST each answered question here, signed.",
    )

    def clean_webhook_url(self) -> str:
        url = self.cleaned_data["webhook_url"]
        if url:
            try:
                check_url(url)
            except UnsafeURLError as error:
                raise forms.ValidationError(str(error)) from error
        return url


@login_required
@require_http_methods(["GET", "POST"])
def tokens(request: HttpRequest) -> HttpResponse:
    form = TokenForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        token, key = create_token(request.user, **form.cleaned_data)
        request.session[NEW_KEY] = {"token": token.pk, "key": key}
        return redirect("api_tokens")
    context = {
        "form": form,
        "created": _take_new_key(request),
        "tokens": ApiToken.objects.owned_by(request.user),
    }
    return TemplateResponse(request, "api/tokens.html", context)


def _take_new_key(request: HttpRequest) -> dict | None:
    """Return the token just created with its key, taken out of the session: shown this once."""
    new = request.session.pop(NEW_KEY, None)
    token = new and ApiToken.objects.owned_by(request.user).filter(pk=new["token"]).first()
    if not token:
        return None
    return {"token": token, "key": new["key"], "signing_secret": signing_secret(token)}


@login_required
@require_POST
def revoke_token(request: HttpRequest, token_id: int) -> HttpResponse:
    revoke(get_object_or_404(ApiToken.objects.owned_by(request.user), pk=token_id))
    return redirect("api_tokens")

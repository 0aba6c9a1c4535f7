"""The API tokens page: create (the key is shown once), list and revoke your tokens."""

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.views.decorators.http import require_http_methods, require_POST

from api.models import ApiToken
from api.tokens import create_token, revoke, signing_secret
from api.webhooks import UnsafeURLError, check_url


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
    created = None
    if request.method == "POST" and form.is_valid():
        token, key = create_token(request.user, **form.cleaned_data)
        created = {"token": token, "key": key, "signing_secret": signing_secret(token)}
        form = TokenForm()
    context = {
        "form": form,
        "created": created,
        "tokens": ApiToken.objects.owned_by(request.user),
    }
    return TemplateResponse(request, "api/tokens.html", context, status=201 if created else 200)


@login_required
@require_POST
def revoke_token(request: HttpRequest, token_id: int) -> HttpResponse:
    revoke(get_object_or_404(ApiToken.objects.owned_by(request.user), pk=token_id))
    return redirect("api_tokens")

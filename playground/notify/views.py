"""The person's notification settings: email on or off, reminders, quiet hours."""

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.views.decorators.http import require_http_methods

from elicitation.zones import zone_of
from playground.notify.models import NotifySettings


class SettingsForm(forms.ModelForm):
    class Meta:
        model = NotifySettings
        fields = ["email", "reminders", "quiet_from", "quiet_until"]
        labels = {
            "email": "Email me when a question waits for my answer",
            "reminders": "Remind me about questions still waiting (at most once a day each)",
            "quiet_from": "Quiet from",
            "quiet_until": "Quiet until",
        }
        widgets = {
            "quiet_from": forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
            "quiet_until": forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
        }

    def clean(self) -> dict:
        data = super().clean()
        if bool(data.get("quiet_from")) != bool(data.get("quiet_until")):
            raise forms.ValidationError("Give quiet hours both a start and an end, or neither.")
        return data


@login_required
@require_http_methods(["GET", "POST"])
def settings_page(request: HttpRequest) -> HttpResponse:
    """Show and change the person's own notification settings."""
    mine = NotifySettings.objects.filter(user=request.user).first()
    mine = mine or NotifySettings(user=request.user)
    form = SettingsForm(request.POST if request.method == "POST" else None, instance=mine)
    saved = request.method == "POST" and form.is_valid()
    if saved:
        form.save()
    return TemplateResponse(
        request,
        "notify/settings.html",
        {"form": form, "saved": saved, "zone": zone_of(request.user).key},
        status=422 if form.errors else 200,
    )

"""Who signed on from where: a person is matched by their provider's subject, never by email.

Nothing the provider sends is kept here beyond the subject: name and email live on the user,
groups in Django's groups. `ProviderGroup` marks the groups that came from a provider, the
only ones a sign-in adds people to or removes them from.
"""

from django.conf import settings
from django.contrib.auth.models import Group
from django.db import models


class SignOn(models.Model):
    """One person at one provider (an OpenID issuer, or the trusted proxy)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    issuer = models.CharField(max_length=255)
    subject = models.CharField(max_length=255)
    # The reviewer rights (staff, the reviewer group) were given by a sign-in: a later sign-in
    # without the reviewer group takes them back. Rights given in the admin stay.
    made_reviewer = models.BooleanField(default=False)
    # Deactivated because a sign-in was refused (outside the allowed groups): an accepted
    # sign-in activates the person again. One deactivated in the admin stays out.
    shut_out = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["issuer", "subject"], name="one_person_per_subject")
        ]

    def __str__(self) -> str:
        return f"{self.user} at {self.issuer}"


class ProviderGroup(models.Model):
    """A group made by a sign-in, from the provider's groups (not one made here)."""

    group = models.OneToOneField(
        Group, on_delete=models.CASCADE, primary_key=True, related_name="from_provider"
    )

    def __str__(self) -> str:
        return str(self.group)

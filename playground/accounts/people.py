"""Who a provider says signs in, whether they may, and their account here.

Both ways of signing on (OpenID Connect, a trusted proxy's header) end here with a `Person`:
`refusal` says why one may not sign in (nothing is created), and the backend finds or makes
their account by (issuer, subject), refreshes their name and email, and sets the groups that
came from the provider. Groups made here, such as the reviewer group, are left alone; only
the reviewer setting gives (and, at a later sign-in without it, takes back) reviewer rights.
"""

import logging
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Group
from django.db import IntegrityError, transaction

from playground.accounts.models import ProviderGroup, SignOn

log = logging.getLogger(__name__)

REVIEWER_GROUP = "reviewer"  # made by elicitation's migration 0002: view rights in the admin
NAME_CHARS = 150  # Django's limits for a username, a first name and a group name


@dataclass(frozen=True)
class Person:
    """What the provider vouches for: nothing else of what it sends is kept or logged."""

    issuer: str
    subject: str
    username: str
    name: str = ""
    email: str = ""
    email_verified: bool | None = None
    groups: tuple[str, ...] = ()


@dataclass(frozen=True)
class Refusal:
    """Why someone may not sign in, for the page that tells them (title, then what to do)."""

    title: str
    reason: str


def group_names(value: object) -> tuple[str, ...]:
    """Return the group names in a claim or header value (a list, or one comma-separated
    string); anything else names no group."""
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list):
        return ()
    names = (name.strip() for name in value if isinstance(name, str))
    return tuple(dict.fromkeys(name for name in names if name and len(name) <= NAME_CHARS))


def _whom_to_ask(provider: str) -> str:
    return settings.SIGN_ON_CONTACT or f"whoever manages your account at {provider}"


def refusal(person: Person, provider: str) -> Refusal | None:
    """Return why `person` may not sign in, or None. Someone refused for their groups loses
    their account's access (and their API tokens') until a sign-in is accepted again."""
    if person.email and person.email_verified is False:
        return Refusal(
            "Your email address is not verified",
            f"{provider} says the address {person.email} is not verified yet. Verify it at "
            f"{provider} (look for its confirmation mail), then sign in again.",
        )
    known = SignOn.objects.select_related("user").filter(
        issuer=person.issuer, subject=person.subject
    )
    allowed = settings.SIGN_ON_ALLOWED_GROUPS
    if allowed and not set(allowed) & set(person.groups):
        for sign_on in known:
            _shut_out(sign_on)
        return Refusal(
            "This playground is not open to you",
            f"Signing in here is for members of {', '.join(allowed)} at {provider}, and "
            f"{provider} does not list you in any of them. Ask {_whom_to_ask(provider)} to "
            "add you, then sign in again.",
        )
    if any(not s.user.is_active and not s.shut_out for s in known):
        return Refusal(
            "Your account here is deactivated",
            "An administrator of this playground deactivated your account. Ask them to "
            "activate it again, then sign in again.",
        )
    return None


def _shut_out(sign_on: SignOn) -> None:
    user = sign_on.user
    if user.is_active:
        user.is_active = False
        user.save(update_fields=["is_active"])
        SignOn.objects.filter(pk=sign_on.pk).update(shut_out=True)
        log.info("Sign-on: deactivated %s, who is outside the allowed groups", user)


class SignOnBackend(ModelBackend):
    """Sign in a `Person` the provider vouched for; their permissions as ModelBackend's."""

    def authenticate(self, request, *, person: Person | None = None, **credentials):
        if person is None:
            return None
        with transaction.atomic():
            user = _account(person)
            _set_groups(user, person.groups)
        return user if self.user_can_authenticate(user) else None


def _account(person: Person):
    """Return the person's account, made at their first sign-in, with name and email
    refreshed and reviewer rights as the provider's groups say."""
    sign_on = _sign_on(person)
    if sign_on is None:
        try:
            with transaction.atomic():  # a savepoint: the transaction goes on after a clash
                sign_on = _first_sign_on(person)
        except IntegrityError:
            # Another sign-in of this person (a double click, two tabs) made the account
            # between our look and our insert; it has committed, so it is there to read.
            sign_on = _sign_on(person)
            if sign_on is None:
                raise
    user = sign_on.user
    user.first_name = person.name[:NAME_CHARS]
    user.email = person.email[:254]
    if sign_on.shut_out:
        user.is_active, sign_on.shut_out = True, False
    reviewer = bool(settings.SIGN_ON_REVIEWER_GROUP) and (
        settings.SIGN_ON_REVIEWER_GROUP in person.groups
    )
    if reviewer != sign_on.made_reviewer:
        user.is_staff = reviewer
        group = Group.objects.get(name=REVIEWER_GROUP)
        (user.groups.add if reviewer else user.groups.remove)(group)
        sign_on.made_reviewer = reviewer
    user.save()
    sign_on.save(update_fields=["shut_out", "made_reviewer"])
    return user


def _sign_on(person: Person) -> SignOn | None:
    return (
        SignOn.objects.select_for_update()
        .select_related("user")
        .filter(issuer=person.issuer, subject=person.subject)
        .first()
    )


def _first_sign_on(person: Person) -> SignOn:
    user = get_user_model().objects.create_user(_free_username(person.username))
    sign_on = SignOn.objects.create(user=user, issuer=person.issuer, subject=person.subject)
    log.info("Sign-on: made the account %s", user)
    return sign_on


def _free_username(wanted: str) -> str:
    """Return `wanted`, or `wanted-2`, `wanted-3`... if someone here already has it."""
    User = get_user_model()
    base = wanted[: NAME_CHARS - 6] or "person"
    taken = set(User.objects.filter(username__startswith=base).values_list("username", flat=True))
    candidate, number = base, 1
    while candidate in taken:
        number += 1
        candidate = f"{base}-{number}"
    return candidate


def _set_groups(user, names: tuple[str, ...]) -> None:
    """Make the person a member of exactly the provider's groups among those that came from a
    provider (making any new ones); groups made here are not touched."""
    for name in names:
        group, made = Group.objects.get_or_create(name=name)
        if made:
            ProviderGroup.objects.create(group=group)
    from_provider = Group.objects.filter(from_provider__isnull=False)
    user.groups.remove(*from_provider.exclude(name__in=names))
    user.groups.add(*from_provider.filter(name__in=names))

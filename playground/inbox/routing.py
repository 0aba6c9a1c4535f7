"""Who a question is for: the names an agent routes it to (`ask=[...]`), checked and resolved.

An agent may address only people and groups its conversation's owner may address: a group the
owner belongs to, a member of such a group, or a name on the deployment's allow-lists
(`ROUTING_ALLOWED_GROUPS`, `ROUTING_ALLOWED_USERS`). An unknown name and a name not allowed
give the same reason, so names cannot be probed through the API.
"""

from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db.models import Q

from elicitation.models import Part

MAX_NAMES = 20
PREFIXES = ("group:", "user:")


@dataclass(frozen=True)
class Audience:
    """Who a question is routed to: the names as given, and the rows they resolve to."""

    names: list[str]
    users: list
    groups: list


def resolve(owner, ask: object) -> Audience | str:
    """Return the audience `ask` names for a conversation of `owner`, or the reason it cannot
    be used (the part is then degraded and the agent told at once; nobody is asked)."""
    if not isinstance(ask, (list, tuple)) or not all(isinstance(name, str) for name in ask):
        return 'ask must be a list of names like "group:release-managers" or "user:ada"'
    names = list(dict.fromkeys(name.strip() for name in ask))
    if len(names) > MAX_NAMES:
        return f"ask names {len(names)} people and groups; at most {MAX_NAMES} are allowed"
    for name in names:
        if not name.startswith(PREFIXES) or not name.split(":", 1)[1]:
            return f'ask has "{name[:80]}": a name starts with "group:" or "user:"'
    wanted_groups = [name.removeprefix("group:") for name in names if name.startswith("group:")]
    wanted_users = [name.removeprefix("user:") for name in names if name.startswith("user:")]
    groups = {group.name: group for group in _addressable_groups(owner, wanted_groups)}
    users = {user.get_username(): user for user in _addressable_users(owner, wanted_users)}
    for name in names:
        kind, key = name.split(":", 1)
        if key not in (groups if kind == "group" else users):
            return f'ask has "{name[:80]}": no person or group by that name this agent may ask'
    return Audience(names=names, users=list(users.values()), groups=list(groups.values()))


def _addressable_groups(owner, names: list[str]):
    allowed = Q(pk__in=owner.groups.values("pk")) | Q(name__in=settings.ROUTING_ALLOWED_GROUPS)
    return Group.objects.filter(allowed, name__in=names)


def _addressable_users(owner, usernames: list[str]):
    User = get_user_model()
    field = User.USERNAME_FIELD
    allowed = (
        Q(pk=owner.pk)
        | Q(groups__in=owner.groups.values("pk"))
        | Q(**{f"{field}__in": settings.ROUTING_ALLOWED_USERS})
    )
    return User.objects.filter(allowed, is_active=True, **{f"{field}__in": usernames}).distinct()


def audience_of(part: Part) -> list:
    """Return the people who may answer a part: its owner (unless someone else must answer),
    the people it is routed to and the members of the groups it is routed to."""
    User = get_user_model()
    if part.audience is not None:  # being saved (a `post_save` hook asks): not yet in the tables
        users, groups = part.audience
        routed = Q(pk__in=[user.pk for user in users]) | Q(groups__in=[g.pk for g in groups])
    else:
        routed = Q(pk__in=part.assigned_users.values("pk")) | Q(
            groups__in=part.assigned_groups.values("pk")
        )
    people = {user.pk: user for user in User.objects.filter(routed, is_active=True).distinct()}
    owner = part.conversation.owner
    if part.owner_may_answer:
        people[owner.pk] = owner
    else:
        people.pop(owner.pk, None)
    return sorted(people.values(), key=lambda user: user.pk)

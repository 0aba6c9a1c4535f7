"""What waits for a person: the pending questions they may answer, filtered and ordered."""

from dataclasses import dataclass

from django.db import connection
from django.http import QueryDict

from elicitation.models import Part

KINDS = {
    "approval": ("Approval", {"render_kind": "approval"}),
    "url": ("Page to open", {"render_kind__in": ["url", "url-wait"]}),
    "question": ("Question", {}),
}
SCOPES = {
    "mine": "In my conversations",
    "me": "Routed to me",
    "groups": "Routed to my groups",
}


@dataclass(frozen=True)
class Filters:
    """The inbox's filters, read from its query string (unknown values are ignored)."""

    agent: str = ""
    kind: str = ""
    intent: str = ""
    scope: str = ""
    newest_first: bool = False

    @classmethod
    def read(cls, query: QueryDict) -> "Filters":
        return cls(
            agent=query.get("agent", "")[:100],
            kind=query.get("kind", "") if query.get("kind") in KINDS else "",
            intent=query.get("intent", "")[:40],
            scope=query.get("scope", "") if query.get("scope") in SCOPES else "",
            newest_first=query.get("order") == "newest",
        )

    @property
    def active(self) -> bool:
        return bool(self.agent or self.kind or self.intent or self.scope)


def waiting_for(user, filters: Filters = Filters()):
    """Return the pending questions the person may answer, oldest first unless asked."""
    parts = Part.objects.answerable_by(user).filter(state=Part.State.PENDING)
    if filters.agent:
        parts = parts.filter(conversation__agent__slug=filters.agent)
    if filters.kind == "question":
        parts = parts.exclude(render_kind__in=["approval", "url", "url-wait"])
    elif filters.kind:
        parts = parts.filter(**KINDS[filters.kind][1])
    if filters.intent:
        parts = parts.filter(intent=filters.intent)
    if filters.scope == "mine":
        parts = parts.filter(conversation__owner=user)
    elif filters.scope == "me":
        parts = parts.filter(assigned_users=user)
    elif filters.scope == "groups":
        parts = parts.filter(pk__in=Part.objects.filter(assigned_groups__user=user).values("pk"))
    order = ("-created_at", "-id") if filters.newest_first else ("created_at", "id")
    return parts.order_by(*order)


def count_for(user) -> int:
    """Return how many questions wait for the person (the header's count)."""
    return waiting_for(user).count()


class Counter:
    """The header's count for one person, asked again and again (an open page's socket, at
    every change): its statement is built and compiled once.

    Building and compiling the query was most of what a count cost, at every question asked
    and answered, on the thread every run and socket shares. What the statement
    reads is all in the database (the person's conversations, routes and groups are
    subqueries), so one compiled for a person stays right for as long as they are that person.
    """

    def __init__(self, user):
        waiting = waiting_for(user).order_by().values("pk")
        sql, self.params = waiting.query.sql_with_params()
        self.sql = f"SELECT COUNT(*) FROM ({sql}) waiting"

    def count(self) -> int:
        with connection.cursor() as cursor:
            cursor.execute(self.sql, self.params)
            return cursor.fetchone()[0]


def kind_label(part: Part) -> str:
    """Return what kind of question a part is, as the inbox lists it."""
    if part.render_kind == "approval":
        return KINDS["approval"][0]
    if part.render_kind in ("url", "url-wait"):
        return KINDS["url"][0]
    return KINDS["question"][0]

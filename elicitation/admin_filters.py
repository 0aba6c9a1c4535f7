"""What the parts changelist filters and drills down by, without scanning every part."""

from datetime import datetime, timedelta

from django.contrib import admin
from django.db.models import QuerySet
from django.utils import timezone

from elicitation.kinds import KINDS
from elicitation.models import Part


class CalendarQuerySet(QuerySet):
    """Parts whose date hierarchy costs two index lookups, not a DISTINCT over every row.

    The admin's date drill-down asks `datetimes()` for the periods that hold parts; on SQLite
    that truncates each row's date in Python, slow with many parts. Here it lists every
    year, month or day between the first and last matching part instead: a period in between
    may hold none, and then shows an empty list.
    """

    def datetimes(self, field_name, kind, order="ASC", tzinfo=None):
        dates = self.order_by().values_list(field_name, flat=True)
        first = dates.order_by(field_name).first()
        last = dates.order_by(f"-{field_name}").first()
        if first is None or last is None:
            return []
        first, last = timezone.localtime(first, tzinfo), timezone.localtime(last, tzinfo)
        periods = list(_periods(first, last, kind))
        return periods if order == "ASC" else periods[::-1]


def _periods(first: datetime, last: datetime, kind: str):
    start = first.replace(hour=0, minute=0, second=0, microsecond=0)
    if kind in ("year", "month"):
        start = start.replace(day=1)
    if kind == "year":
        start = start.replace(month=1)
    while start <= last:
        yield start
        if kind == "day":
            start = (start + timedelta(days=1)).replace(hour=0)
        elif kind == "month":
            start = start.replace(year=start.year + start.month // 12, month=start.month % 12 + 1)
        else:
            start = start.replace(year=start.year + 1)


class AgentFilter(admin.SimpleListFilter):
    """Agents by name; every person's unfinished wizard is one "Agent setup (drafts)" entry."""

    title = "agent"
    parameter_name = "agent"
    DRAFTS = "drafts"

    def lookups(self, request, model_admin):
        # The agent model through the relation: this app does not import the chat's models.
        conversation = Part._meta.get_field("conversation").related_model
        agent_model = conversation._meta.get_field("agent").related_model
        agents = agent_model.objects.filter(is_draft=False).select_related("owner")
        choices = [
            (str(agent.pk), f"{agent.name} ({agent.owner})" if agent.owner else agent.name)
            for agent in agents.order_by("name", "pk")
        ]
        return [*choices, (self.DRAFTS, "Agent setup (drafts)")]

    def queryset(self, request, queryset):
        if self.value() == self.DRAFTS:
            return queryset.filter(conversation__agent__is_draft=True)
        if self.value() and self.value().isdigit():
            return queryset.filter(conversation__agent_id=int(self.value()))
        return queryset


class KindFilter(admin.SimpleListFilter):
    title = "kind"
    parameter_name = "kind"

    def lookups(self, request, model_admin):
        # From the registry, not a DISTINCT over every part.
        return [(name, name) for name in KINDS] + [("other", "not handled by this client")]

    def queryset(self, request, queryset):
        if self.value() == "other":
            return queryset.exclude(render_kind__in=list(KINDS))
        if self.value():
            return queryset.filter(render_kind=self.value())
        return queryset


class IntentFilter(admin.SimpleListFilter):
    title = "intent"
    parameter_name = "intent"
    NONE = "none"

    def lookups(self, request, model_admin):
        intents = Part.objects.order_by("intent").values_list("intent", flat=True).distinct()
        return [(intent or self.NONE, intent or "none (a plain question)") for intent in intents]

    def queryset(self, request, queryset):
        if self.value():
            return queryset.filter(intent="" if self.value() == self.NONE else self.value())
        return queryset


class AnsweredByFilter(admin.RelatedOnlyFieldListFilter):
    """Only the people who settled something, not every account."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.title = "answered by"
        self.empty_value_display = "nobody yet (pending or degraded)"

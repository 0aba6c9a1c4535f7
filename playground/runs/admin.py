"""Admin pages for agents, conversations and what happened in them (read-only records), and
the schedules agents run on with the runs each slot started or skipped."""

from django.contrib import admin
from django.db.models import Count, IntegerField, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import format_html
from django.utils.text import Truncator

from elicitation.admin_frame import chat_frame
from elicitation.models import Part
from playground.chat import fragments
from playground.runs.models import (
    Agent,
    Conversation,
    Message,
    Schedule,
    ScheduledRun,
    Step,
    Turn,
    WireMessage,
)


class RecordAdmin(admin.ModelAdmin):
    """What happened is a record: viewable by staff with view permission, never edited here."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class RecordInline(admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


def _count(model, **filters) -> Coalesce:
    """Return a per-conversation count as a subquery: no row multiplication, one query."""
    rows = (
        model.objects.filter(conversation=OuterRef("pk"), **filters)
        .order_by()
        .values("conversation")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Coalesce(Subquery(rows, output_field=IntegerField()), 0)


def _admin_link(obj, text: str | None = None) -> str:
    meta = obj._meta
    url = reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[obj.pk])
    return format_html('<a href="{}">{}</a>', url, text or str(obj))


@admin.register(Agent)
class AgentAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "kind", "builtin", "is_draft", "owner", "created_at"]
    list_filter = ["builtin", "is_draft"]
    search_fields = ["name", "slug", "description"]
    list_select_related = ["owner"]
    readonly_fields = ["slug", "kind", "builtin", "owner", "is_draft", "created_at"]

    def has_add_permission(self, request):
        return False  # agents come from code or the onboarding wizard

    def has_delete_permission(self, request, obj=None):
        return False  # deleting one would delete its conversations and their record


@admin.register(Conversation)
class ConversationAdmin(RecordAdmin):
    list_display = ["shown_title", "owner", "agent", "turn_count", "pending_count", "updated_at"]
    list_filter = ["agent", ("owner", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["title", "owner__username"]
    list_select_related = ["owner", "agent"]
    date_hierarchy = "updated_at"
    view_on_site = False  # the chat page is its owner's only
    fields = ["owner", "agent", "title", "created_at", "updated_at", "parts_link", "transcript"]
    readonly_fields = fields

    class Media:
        css = {"all": ["elicitation/admin.css"]}
        js = ["elicitation/admin.js"]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                turn_count=_count(Turn),
                pending_count=_count(Part, state=Part.State.PENDING),
            )
        )

    @admin.display(description="Title", ordering="title")
    def shown_title(self, conversation):
        return Truncator(str(conversation)).chars(60)

    @admin.display(description="Turns", ordering="turn_count")
    def turn_count(self, conversation):
        return conversation.turn_count

    @admin.display(description="Pending questions", ordering="pending_count")
    def pending_count(self, conversation):
        return conversation.pending_count

    @admin.display(description="Parts")
    def parts_link(self, conversation):
        url = reverse("admin:elicitation_part_changelist")
        return format_html(
            '<a href="{}?conversation__id__exact={}">Review this conversation\'s parts</a>',
            url,
            conversation.pk,
        )

    @admin.display(description="Transcript")
    def transcript(self, conversation):
        turns = fragments.transcript(conversation, disabled=True)
        if not turns:
            return "(nothing said yet)"
        html = "".join(
            render_to_string("playground/conversation.html#turn", {"entry": entry})
            for entry in turns
        )
        owner = conversation.owner.get_username()
        return chat_frame(
            f'<div class="transcript">{html}</div>', title=f"The conversation as {owner} saw it"
        )


class MessageInline(RecordInline):
    model = Message
    fields = ["call_index", "role", "text", "created_at"]
    readonly_fields = fields


class StepInline(RecordInline):
    model = Step
    fields = [
        "call_index",
        "name",
        "status",
        "shown",
        "arguments",
        "outcome",
        "started_at",
        "finished_at",
        "result",
    ]
    readonly_fields = fields
    show_change_link = False


def status_badge(turn: Turn):
    kind = {"failed": "failed", "waiting": "pending", "done": "submitted"}.get(turn.status, "")
    return format_html(
        '<span class="state-badge state-badge--{}">{}</span>', kind, turn.get_status_display()
    )


@admin.register(Turn)
class TurnAdmin(RecordAdmin):
    list_display = [
        "which",
        "conversation_link",
        "excerpt",
        "status_shown",
        "error",
        "created_at",
    ]
    list_filter = ["status"]
    search_fields = ["text", "error"]
    list_select_related = ["conversation"]
    date_hierarchy = "created_at"
    fields = [
        "conversation_link",
        "index",
        "text",
        "surface",
        "status_shown",
        "error",
        "error_trace_shown",
        "input_tokens",
        "output_tokens",
        "created_at",
        "updated_at",
        "heartbeat_at",
    ]
    readonly_fields = fields
    inlines = [MessageInline, StepInline]

    class Media:
        css = {"all": ["elicitation/admin.css"]}

    @admin.display(description="Turn", ordering="index")
    def which(self, turn):
        # The row has the conversation and the time: the turn's full name would repeat them.
        return f"{'Run' if turn.scheduled else 'Message'} {turn.index + 1}"

    @admin.display(description="Conversation", ordering="conversation")
    def conversation_link(self, turn):
        return _admin_link(turn.conversation)

    @admin.display(description="Person's message")
    def excerpt(self, turn):
        return Truncator(turn.text).chars(60)

    @admin.display(description="Status", ordering="status")
    def status_shown(self, turn):
        return status_badge(turn)

    @admin.display(description="Error trace")
    def error_trace_shown(self, turn):
        # The chat shows a one-line summary; the full trace lives here.
        if not turn.error_trace:
            return "—"
        return format_html('<pre class="error-trace">{}</pre>', turn.error_trace)


@admin.register(Message)
class MessageAdmin(RecordAdmin):
    list_display = ["excerpt", "role", "turn_link", "call_index", "created_at"]
    list_filter = ["role"]
    search_fields = ["text"]
    list_select_related = ["turn__conversation"]  # a turn is named by its conversation
    fields = ["turn_link", "call_index", "role", "text", "created_at"]
    readonly_fields = fields

    @admin.display(description="Message")
    def excerpt(self, message):
        return Truncator(message.text).chars(80)

    @admin.display(description="Turn", ordering="turn")
    def turn_link(self, message):
        return _admin_link(message.turn)


@admin.register(WireMessage)
class WireMessageAdmin(RecordAdmin):
    """The conversations' wires, as their Wire panels show them: stored with secrets removed
    (`playground.runs.wire`), so nothing here can show one."""

    list_display = ["at", "conversation_link", "source", "direction", "kind", "method", "size"]
    list_filter = ["direction", "kind", "source"]
    search_fields = ["method", "source"]
    list_select_related = ["conversation"]
    date_hierarchy = "at"
    fields = [
        "conversation_link",
        "source",
        "direction",
        "kind",
        "method",
        "size",
        "at",
        "content",
    ]
    readonly_fields = fields

    @admin.display(description="Conversation", ordering="conversation")
    def conversation_link(self, message):
        return _admin_link(message.conversation)

    @admin.display(description="Message (secrets removed)")
    def content(self, message):
        return format_html('<pre class="wire-body">{}</pre>', message.body)


class ScheduledRunInline(RecordInline):
    model = ScheduledRun
    fields = ["slot_at", "kind", "missed", "turn_link", "note"]
    readonly_fields = fields
    show_change_link = False

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("turn__conversation")  # its name

    @admin.display(description="Turn")
    def turn_link(self, run):
        return _admin_link(run.turn) if run.turn_id else "—"


@admin.register(Schedule)
class ScheduleAdmin(RecordAdmin):
    list_display = ["agent", "owner", "description", "time_zone", "paused", "next_run_at"]
    list_filter = ["paused", "agent"]
    search_fields = ["agent__name", "owner__username", "description"]
    list_select_related = ["agent", "owner"]
    fields = [
        "agent",
        "owner",
        "description",
        "rule_shown",
        "time_zone",
        "paused",
        "next_run_at",
        "conversation",
        "created_at",
        "updated_at",
    ]
    readonly_fields = fields
    inlines = [ScheduledRunInline]

    @admin.display(description="Rule (RFC 5545)")
    def rule_shown(self, schedule):
        return format_html("<pre>{}</pre>", schedule.rule) if schedule.rule else "Only on demand"


@admin.register(ScheduledRun)
class ScheduledRunAdmin(RecordAdmin):
    list_display = ["slot_at", "kind", "schedule", "missed", "turn_status", "note"]
    list_filter = ["kind"]
    search_fields = ["schedule__agent__name", "schedule__owner__username", "note"]
    list_select_related = ["schedule__agent", "schedule__owner", "turn"]
    date_hierarchy = "slot_at"
    fields = ["schedule", "slot_at", "kind", "missed", "turn_link", "note", "created_at"]
    readonly_fields = fields

    @admin.display(description="Turn")
    def turn_link(self, run):
        return _admin_link(run.turn) if run.turn_id else "—"

    @admin.display(description="Outcome")
    def turn_status(self, run):
        return status_badge(run.turn) if run.turn_id else "—"

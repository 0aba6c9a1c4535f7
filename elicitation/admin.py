"""The admin review of parts: what agents asked, who answered what and when, what degraded.

Parts are a record: nobody adds, edits or deletes one here. The only change is the cancel
action, which settles pending parts the way the person's Cancel button would.
"""

import json
from collections.abc import Callable
from datetime import datetime, timedelta

from django.contrib import admin, messages
from django.contrib.admin import ActionLocation
from django.core.exceptions import PermissionDenied
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html, format_html_join
from django.utils.text import Truncator

from elicitation import contract
from elicitation.admin_filters import (
    AgentFilter,
    AnsweredByFilter,
    CalendarQuerySet,
    IntentFilter,
    KindFilter,
)
from elicitation.admin_frame import chat_frame
from elicitation.admin_overview import overview, range_form
from elicitation.exports import export_csv, export_jsonl
from elicitation.models import AnswerFile, Part
from elicitation.rendering import render_part_html
from elicitation.review import describe_duration, search, with_answer_time
from elicitation.settle import settle_part

BOTH_PAGES = [ActionLocation.CHANGE_LIST, ActionLocation.CHANGE_FORM]
# What apps above add to a part's timeline (notify: each notification sent), as
# (label, moment) pairs; this app cannot import them.
TIMELINE_STEPS: list[Callable[[Part], list[tuple[str, datetime]]]] = []


def add_timeline_steps(steps: Callable[[Part], list[tuple[str, datetime]]]) -> None:
    TIMELINE_STEPS.append(steps)


SETTLED_LABELS = {
    Part.State.SUBMITTED: "Answered",
    Part.State.DECLINED: "Declined",
    Part.State.CANCELLED: "Cancelled",
    Part.State.DEGRADED: "Refused as unsupported",
}


def state_badge(state: str, label: str):
    """Return the state as a badge: its own colour and symbol (admin.css) and its name."""
    return format_html('<span class="state-badge state-badge--{}">{}</span>', state, label)


def _after(duration: timedelta) -> str:
    """Return how long after the question a step came: "0.4 s later", "at once"."""
    if duration < timedelta(milliseconds=50):
        return "at once"
    return f"{describe_duration(duration)} later"


def pretty_json(value) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


@admin.register(Part)
class PartAdmin(admin.ModelAdmin):
    # Sized for a 1366 px laptop beside the filters; kind and intent are on each part's page.
    list_display = [
        "asked",
        "question_and_agent",
        "state_shown",
        "time_to_answer",
        "answered_by",
    ]
    list_display_links = ["asked"]
    list_filter = [
        "state",
        KindFilter,
        IntentFilter,
        AgentFilter,
        ("settled_by", AnsweredByFilter),
    ]
    date_hierarchy = "created_at"
    # Switches the search box on; get_search_results() searches the JSON columns too.
    search_fields = ["conversation__title"]
    search_help_text = (
        "Searches the question, field titles and options, the answers, degraded reasons "
        'and conversation titles. Every word must match; quote a phrase: "staging server".'
    )
    list_select_related = ["conversation__agent", "settled_by"]
    ordering = ["-created_at", "-pk"]
    list_per_page = 50
    # One COUNT per page is enough; the unfiltered total is not worth a second one.
    show_full_result_count = False
    actions = ["cancel_pending", "export_csv", "export_jsonl"]
    fieldsets = [
        ("As the person saw it", {"fields": ["question"]}),
        (
            "Where and who",
            {
                "fields": [
                    "conversation_link",
                    "agent",
                    "turn_link",
                    "state_shown",
                    "answered_by",
                    "routed_to",
                    "degraded_reason",
                    ("kind", "intent_shown", "tool_name"),
                    ("tool_call_id", "call_index", "allowed_actions"),
                ]
            },
        ),
        ("Timeline", {"fields": ["timeline"]}),
        ("Request", {"fields": ["request_pair"]}),
        ("Response", {"fields": ["response_json", "value_json"]}),
    ]
    readonly_fields = [
        "question",
        "conversation_link",
        "agent",
        "turn_link",
        "state_shown",
        "answered_by",
        "routed_to",
        "degraded_reason",
        "kind",
        "intent_shown",
        "tool_name",
        "tool_call_id",
        "call_index",
        "allowed_actions",
        "timeline",
        "request_pair",
        "response_json",
        "value_json",
    ]

    class Media:
        css = {"all": ["elicitation/admin.css"]}
        js = ["elicitation/admin.js"]

    def get_queryset(self, request):
        queryset = CalendarQuerySet(self.model).order_by(*self.get_ordering(request))
        queryset = queryset.select_related(
            "conversation__agent", "conversation__owner", "settled_by"
        )
        return with_answer_time(queryset)

    def get_fieldsets(self, request, obj=None):
        # Leave out what does not apply to this part rather than showing empty rows.
        hidden = set()
        if obj is not None and obj.state != Part.State.DEGRADED:
            hidden.add("degraded_reason")
        if obj is not None and obj.value is None:
            hidden.add("value_json")
        return [
            (name, {**options, "fields": [f for f in options["fields"] if f not in hidden]})
            for name, options in self.fieldsets
        ]

    def get_search_results(self, request, queryset, search_term):
        if not search_term.strip():
            return queryset, False
        return search(queryset, search_term), False

    # --- permissions: a record, read-only for everyone ----------------------------------

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        # Deleting a part would make its run ask the question again on the next replay.
        return False

    def has_change_permission(self, request, obj=None):
        # Model-level change permission allows the cancel action; no part is ever edited.
        if obj is not None:
            return False
        return super().has_change_permission(request)

    # --- columns ------------------------------------------------------------------------

    @admin.display(description="Asked", ordering="created_at")
    def asked(self, part):
        moment = timezone.localtime(part.created_at)  # the viewer's zone (viewer_zone)
        # The one DATETIME_FORMAT ("7 Dec 2026, 13:40 CET"), the time under the day.
        return format_html(
            '{}<span class="under">{} {}</span>',
            date_format(moment, "DATE_FORMAT"),
            date_format(moment, "TIME_FORMAT"),
            moment.tzname(),
        )

    @admin.display(description="Agent", ordering="conversation__agent__name")
    def agent(self, part):
        return part.conversation.agent.name

    @admin.display(description="Conversation")
    def conversation_link(self, part):
        url = reverse("admin:playground_conversation_change", args=[part.conversation_id])
        return format_html('<a href="{}">{}</a>', url, Truncator(str(part.conversation)).chars(32))

    @admin.display(description="Question")
    def excerpt(self, part):
        return Truncator(part.message or part.degraded_reason).chars(90) or "(no message)"

    @admin.display(description="Question / agent and conversation")
    def question_and_agent(self, part):
        url = reverse("admin:elicitation_part_change", args=[part.pk])
        return format_html(
            '<a href="{}">{}</a><span class="under">{} · {}</span>',
            url,
            self.excerpt(part),
            self.agent(part),
            self.conversation_link(part),
        )

    @admin.display(description="Kind", ordering="render_kind")
    def kind(self, part):
        return part.render_kind or part.tool_name

    @admin.display(description="Intent", ordering="intent")
    def intent_shown(self, part):
        return part.intent or "—"

    @admin.display(description="State", ordering="state")
    def state_shown(self, part):
        return state_badge(part.state, part.get_state_display())

    @admin.display(description="Time to answer", ordering="answer_time")
    def time_to_answer(self, part):
        if part.is_pending:
            waited = describe_duration(timezone.now() - part.created_at)
            return format_html('<span class="muted-note">waiting {}</span>', waited)
        return describe_duration(part.answer_time)

    @admin.display(description="Answered by", ordering="settled_by__username")
    def answered_by(self, part):
        return part.settled_by.get_username() if part.settled_by else "—"

    # --- the detail page ------------------------------------------------------------------

    @admin.display(description="Question")
    def question(self, part):
        owner = part.conversation.owner.get_username()
        return chat_frame(
            render_part_html(part, disabled=True), title=f"The question as {owner} saw it"
        )

    @admin.display(description="Turn")
    def turn_link(self, part):
        url = reverse("admin:playground_turn_change", args=[part.turn_id])
        return format_html('<a href="{}">{}</a>', url, part.turn)

    @admin.display(description="Asked of")
    def routed_to(self, part):
        if not part.ask:
            return "The conversation's owner"
        owner = "not" if not part.owner_may_answer else "and"
        return f"{part.waiting_for} ({owner} the conversation's owner)"

    @admin.display(description="Timeline")
    def timeline(self, part):
        steps = [
            ("Asked", part.created_at),
            ("Shown in the chat", part.pushed_at),
            (SETTLED_LABELS.get(part.state, "Answered"), part.settled_at),
            ("Agent resumed", part.resumed_at),
        ]
        if part.escalate_to:  # after "Shown": who was added, and when
            steps.insert(2, (f"Escalated to {', '.join(part.escalate_to)}", part.escalated_at))
        for label, moment in sorted(
            (step for source in TIMELINE_STEPS for step in source(part)), key=lambda s: s[1]
        ):
            # Before the first step that came later or has not happened yet.
            at = next(
                (i for i, (_, then) in enumerate(steps) if i and (then is None or then > moment)),
                len(steps),
            )
            steps.insert(at, (label, moment))
        rows = []
        for label, moment in steps:
            if moment is None:
                rows.append((label, "not yet", ""))
                continue
            # The one DATETIME_FORMAT with seconds, as a record needs ("7 Dec 2026, 13:40:05 CET").
            when = date_format(timezone.localtime(moment), "j M Y, H:i:s T")
            # Stamps taken a moment apart can be out of order by microseconds: that is "at once".
            after = max(moment - part.created_at, timedelta())
            rows.append((label, when, _after(after) if moment != part.created_at else ""))
        items = format_html_join(
            "",
            "<li><strong>{}</strong><span>{}</span><span class='muted-note'>{}</span></li>",
            rows,
        )
        return format_html('<ol class="timeline">{}</ol>', items)

    @admin.display(description="Payload and normalized request")
    def request_pair(self, part):
        return format_html(
            '<div class="json-pair"><div><h4>Original payload (as the agent sent it)</h4>'
            '<pre class="json-block">{}</pre></div><div><h4>Normalized request</h4>'
            '<pre class="json-block">{}</pre></div></div>',
            pretty_json(part.payload),
            pretty_json(part.normalized) if part.normalized else "(none: the payload was refused)",
        )

    @admin.display(description="Response envelope")
    def response_json(self, part):
        if part.response is None:
            return "(none yet)"
        return format_html('<pre class="json-block">{}</pre>', pretty_json(part.response))

    @admin.display(description="Starting values")
    def value_json(self, part):
        if part.value is None:
            return "(none)"
        return format_html('<pre class="json-block">{}</pre>', pretty_json(part.value))

    def get_actions(self, request, action_location=ActionLocation.CHANGE_LIST):
        actions = super().get_actions(request, action_location=action_location)
        if action_location == ActionLocation.CHANGE_FORM and not self._viewing_pending(request):
            # A settled part never changes: its page offers no cancel.
            actions.pop("cancel_pending", None)
        return actions

    def _viewing_pending(self, request) -> bool:
        match = request.resolver_match
        object_id = str(match.kwargs.get("object_id", "")) if match else ""
        pending = Part.objects.filter(state=Part.State.PENDING)
        return object_id.isdigit() and pending.filter(pk=int(object_id)).exists()

    # --- actions --------------------------------------------------------------------------

    @admin.action(
        description="Cancel the selected pending questions (the agent carries on)",
        permissions=["change"],
        location=BOTH_PAGES,
    )
    def cancel_pending(self, request, queryset):
        cancelled = skipped = 0
        for part in queryset:
            if part.is_pending and settle_part(part, contract.cancel(), user=request.user):
                cancelled += 1
                self.log_change(request, part, "Cancelled the pending question.")
            else:
                skipped += 1
        if cancelled:
            self.message_user(
                request,
                f"Cancelled {cancelled} pending question{'s' * (cancelled != 1)}; "
                "their agents were told and carry on.",
                messages.SUCCESS,
            )
        if skipped:
            self.message_user(
                request,
                f"Skipped {skipped} question{'s' * (skipped != 1)} already settled: "
                "a settled part never changes.",
                messages.WARNING,
            )

    @admin.action(description="Export the selected parts as CSV", location=BOTH_PAGES)
    def export_csv(self, request, queryset):
        return export_csv(queryset)

    @admin.action(description="Export the selected parts as JSON Lines", location=BOTH_PAGES)
    def export_jsonl(self, request, queryset):
        return export_jsonl(queryset)

    # --- the overview page ----------------------------------------------------------------

    def get_urls(self):
        overview_url = path(
            "overview/",
            self.admin_site.admin_view(self.overview_view),
            name="elicitation_part_overview",
        )
        return [overview_url, *super().get_urls()]

    def overview_view(self, request):
        if not self.has_view_permission(request):
            raise PermissionDenied
        form = range_form(request.GET)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": "Elicitation overview",
            "form": form,
            "media": self.media,
        }
        if not form.is_valid():
            return TemplateResponse(request, "admin/elicitation/overview.html", context, status=400)
        start, end = form.cleaned_data["start"], form.cleaned_data["end"]
        context.update(overview(start, end), start=start, end=end)
        return TemplateResponse(request, "admin/elicitation/overview.html", context)


@admin.register(AnswerFile)
class AnswerFileAdmin(admin.ModelAdmin):
    """Files attached to answers: who sent what, how large, and a download (never inline)."""

    list_display = ("name", "size_shown", "content_type", "uploaded_by", "part", "sent")
    list_filter = ("content_type",)
    search_fields = ("name", "sha256", "uploaded_by__username")
    list_select_related = ("uploaded_by", "part")
    date_hierarchy = "created_at"
    readonly_fields = (
        "download",
        "name",
        "size",
        "content_type",
        "sha256",
        "part",
        "uploaded_by",
        "created_at",
        "claimed_at",
    )
    exclude = ("stored_as", "preview_as")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description="size", ordering="size")
    def size_shown(self, answer_file: AnswerFile) -> str:
        return contract.size_text(answer_file.size)

    @admin.display(description="sent with an answer", boolean=True)
    def sent(self, answer_file: AnswerFile) -> bool:
        return answer_file.claimed_at is not None

    @admin.display(description="file")
    def download(self, answer_file: AnswerFile) -> str:
        url = reverse("answer_file", args=[answer_file.pk.hex])
        return format_html('<a href="{}" download>Download {}</a>', url, answer_file.name)

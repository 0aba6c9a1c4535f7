"""The Part: one interaction an agent started (a question, a card), and its state machine."""

import uuid

from django.conf import settings
from django.contrib.auth.models import Group
from django.db import models, transaction
from django.db.models import Q


class PartQuerySet(models.QuerySet):
    def owned_by(self, user) -> "PartQuerySet":
        """Return the parts of the person's own conversations (anyone else's are not there)."""
        return self.filter(conversation__owner=user)

    def routed_to(self, user) -> "PartQuerySet":
        """Return the parts addressed to the person, by name or through one of their groups."""
        return self.filter(_routed_to(user))

    def visible_to(self, user) -> "PartQuerySet":
        """Return the parts a person may see: their own conversations' and those routed to them."""
        return self.filter(_in_own_conversations(user) | _routed_to(user))

    def answerable_by(self, user) -> "PartQuerySet":
        """Return the parts a person may answer: their own (unless someone else must) and
        those routed to them (never the starter's own, when someone else must answer)."""
        may = Q(owner_may_answer=True) | ~_in_own_conversations(user)
        by_name, by_group = _routed_terms(user)
        # One list of ids from three indexed lookups, not an OR of them: PostgreSQL tests an
        # OR of subqueries on every pending part of everyone (bench/inbox.py); a UNION it
        # reads by index, as SQLite reads either.
        parts = Part.objects.values("pk")
        own = parts.filter(_in_own_conversations(user), owner_may_answer=True)
        routed = parts.filter(by_name, may), parts.filter(by_group, may)
        return self.filter(pk__in=own.union(*routed))


def _in_own_conversations(user) -> Q:
    # A subquery, not a join on the owner: a join makes the lookup a filter on every row.
    conversations = Part._meta.get_field("conversation").related_model.objects
    return Q(conversation__in=conversations.filter(owner=user).values("pk"))


def _routed_terms(user) -> tuple[Q, Q]:
    # Subqueries, not joins: a part routed to the person twice is still one part.
    by_name = Part.assigned_users.through.objects.filter(user=user).values("part")
    by_group = Part.assigned_groups.through.objects.filter(
        group__in=user.groups.values("pk")
    ).values("part")
    return Q(pk__in=by_name), Q(pk__in=by_group)


def _routed_to(user) -> Q:
    by_name, by_group = _routed_terms(user)
    return by_name | by_group


class Part(models.Model):
    class State(models.TextChoices):
        PENDING = "pending", "Pending"
        SUBMITTED = "submitted", "Submitted"
        DECLINED = "declined", "Declined"
        CANCELLED = "cancelled", "Cancelled"
        DEGRADED = "degraded", "Degraded"

    conversation = models.ForeignKey(
        "playground.Conversation", on_delete=models.CASCADE, related_name="parts"
    )
    turn = models.ForeignKey("playground.Turn", on_delete=models.CASCADE, related_name="parts")
    # Position among the run's calls within the turn; replays find the part by it.
    call_index = models.PositiveIntegerField()
    tool_call_id = models.CharField(max_length=100)
    tool_name = models.CharField(max_length=100, default="request_input")
    render_kind = models.CharField(max_length=40, blank=True)
    payload = models.JSONField(help_text="What the agent sent, exactly as sent.")
    normalized = models.JSONField(null=True, blank=True)
    intent = models.CharField(max_length=40, blank=True)
    # The asking agent's name when it asked: a wizard's questions stay "Agent setup asks" after
    # the agent they made takes over the conversation. Blank: the conversation's agent.
    asker = models.CharField(max_length=80, blank=True)
    allowed_actions = models.JSONField(default=list)
    value = models.JSONField(null=True, blank=True, help_text="Values the form starts with.")
    # For tool_permission approvals: what is being approved, to remember "for this conversation".
    approval_key = models.CharField(max_length=64, blank=True)
    state = models.CharField(max_length=10, choices=State, default=State.PENDING)
    degraded_reason = models.TextField(blank=True)
    response = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    pushed_at = models.DateTimeField(null=True, blank=True)
    settled_at = models.DateTimeField(null=True, blank=True)
    resumed_at = models.DateTimeField(null=True, blank=True)
    settled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="settled_parts",
    )
    # What the admin's search looks in, lower-cased: the question, field titles and options,
    # the answer and the degraded reason. Kept with the part (save, settle_part), so a search
    # reads one column instead of casting three JSON columns to text for every part.
    search_text = models.TextField(blank=True, editable=False)
    # Who the question is addressed to besides the conversation's owner (see
    # playground.inbox.routing):
    # `ask` as the agent named them, for display; the two relations, for queries.
    ask = models.JSONField(default=list, blank=True)
    assigned_users = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="assigned_parts"
    )
    assigned_groups = models.ManyToManyField(Group, blank=True, related_name="assigned_parts")
    # False when someone other than the person who started the run must answer.
    owner_may_answer = models.BooleanField(default=True)
    # Escalation: at `escalate_at` the names in `escalate_to` are added to those asked.
    escalate_to = models.JSONField(default=list, blank=True)
    escalate_at = models.DateTimeField(null=True, blank=True)
    escalated_at = models.DateTimeField(null=True, blank=True)

    objects = PartQuerySet.as_manager()

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["turn", "call_index"], name="unique_part_call"),
        ]
        indexes = [
            models.Index(fields=["state", "-created_at"]),
            models.Index(fields=["conversation", "turn"]),
            models.Index(fields=["-created_at"]),
            models.Index(fields=["conversation", "approval_key"]),
            models.Index(
                fields=["escalate_at"],
                condition=Q(escalate_at__isnull=False),
                name="part_escalation_due",
            ),
        ]

    # Set on an unsaved part (by `build_part`): the users and groups its first save assigns.
    audience: tuple[list, list] | None = None

    def __str__(self) -> str:
        return f"{self.get_state_display()} {self.render_kind or self.tool_name} #{self.pk}"

    def save(self, *args, **kwargs) -> None:
        self.search_text = searchable_text(self)
        if kwargs.get("update_fields") is not None:
            kwargs["update_fields"] = {*kwargs["update_fields"], "search_text"}
        if self.audience is None:
            return super().save(*args, **kwargs)
        with transaction.atomic():  # the question and who it is for, together or not at all
            super().save(*args, **kwargs)
            users, groups = self.audience
            self.assigned_users.set(users)
            self.assigned_groups.set(groups)
        self.audience = None

    def may_answer(self, user) -> bool:
        """Return whether the person may answer this part (the settle view asks)."""
        if self.owner_may_answer and self.conversation.owner_id == user.pk:
            return True  # the usual question: no query
        return bool(self.ask) and Part.objects.answerable_by(user).filter(pk=self.pk).exists()

    @property
    def waiting_for(self) -> str:
        """Return who a routed question waits for, as the chat says it: "Release managers and
        ada" (empty for a question only the owner is asked)."""
        names = [display_name(name) for name in self.ask or []]
        if len(names) <= 1:
            return "".join(names)
        return ", ".join(names[:-1]) + " and " + names[-1]

    @property
    def message(self) -> str:
        """Return the question's text as the agent sent it."""
        if isinstance(self.payload, dict) and isinstance(self.payload.get("message"), str):
            return self.payload["message"]
        return ""

    @property
    def is_pending(self) -> bool:
        return self.state == self.State.PENDING

    @property
    def dom_id(self) -> str:
        """Return the part's HTML id: "part-12", or "part-preview" for an unsaved preview."""
        return f"part-{self.pk}" if self.pk is not None else "part-preview"


def searchable_text(part: Part) -> str:
    """Return the words of a part a search may match, lower-cased, one piece per line."""
    pieces: list[str] = []
    for value in (part.payload, part.normalized, part.response):
        _collect(value, pieces)
    pieces.append(part.degraded_reason or "")
    return "\n".join(piece for piece in pieces if piece).lower()


def _collect(value, pieces: list[str]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            pieces.append(str(key))
            _collect(item, pieces)
    elif isinstance(value, list):
        for item in value:
            _collect(item, pieces)
    elif value is not None:
        pieces.append(str(value))


def display_name(name: str) -> str:
    """Return how a routed name reads: "group:release-managers" -> "Release managers"."""
    kind, _, key = name.partition(":")
    if kind == "group":
        words = key.replace("-", " ").replace("_", " ")
        return words[:1].upper() + words[1:]
    return key


class PersonZone(models.Model):
    """The IANA time zone a person reads and answers dates and times in."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        primary_key=True,
        on_delete=models.CASCADE,
        related_name="time_zone",
    )
    name = models.CharField(max_length=64, help_text="An IANA name, like Europe/Berlin.")

    def __str__(self) -> str:
        return self.name


class AnswerFileQuerySet(models.QuerySet):
    def visible_to(self, user) -> "AnswerFileQuerySet":
        """Return the files a person may fetch: answers in parts they may see, and their own
        uploads not sent yet; staff who review parts may fetch every answer's file."""
        if user.is_staff and user.has_perm("elicitation.view_part"):
            return self.filter(Q(claimed_at__isnull=False) | Q(uploaded_by=user))
        parts = Part.objects.visible_to(user).values("pk")
        answered = Q(claimed_at__isnull=False, part__in=parts)
        return self.filter(answered | Q(uploaded_by=user, part__in=parts))


class AnswerFile(models.Model):
    """A file a person attached to an answer. The answer carries its id, never its bytes."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    part = models.ForeignKey(Part, on_delete=models.CASCADE, related_name="files")
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="answer_files"
    )
    # As the person's browser named it: shown and offered as the download's name, never a path.
    name = models.CharField(max_length=255)
    size = models.PositiveBigIntegerField()
    content_type = models.CharField(max_length=127, help_text="Read from the content.")
    sha256 = models.CharField(max_length=64)
    stored_as = models.CharField(max_length=100, help_text="The storage's name for the bytes.")
    # A small PNG made by decoding a raster image; empty for anything else.
    preview_as = models.CharField(max_length=100, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Set when the answer that carries it settles the part; unclaimed files are swept.
    claimed_at = models.DateTimeField(null=True, blank=True)

    objects = AnswerFileQuerySet.as_manager()

    class Meta:
        ordering = ["created_at"]
        indexes = [models.Index(fields=["claimed_at", "created_at"])]

    def __str__(self) -> str:
        return self.name

    def describe(self) -> dict:
        """Return the file as an answer carries it: {file, name, size, type, sha256}."""
        return {
            "file": self.pk.hex,
            "name": self.name,
            "size": self.size,
            "type": self.content_type,
            "sha256": self.sha256,
        }

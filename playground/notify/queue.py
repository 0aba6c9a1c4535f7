"""The notification queue: a Notice per person and waiting question, claimed like a turn.

A Notice is written when a question is asked (`notice_new_part`), due NOTIFY_AFTER_SECONDS
later. The notices job (`playground.notify.sender`, run by the embedded server or a `manage.py
worker`) claims a person's due notices together, leases them with
`select_for_update(skip_locked=True)` and a token committed before anything is sent, so one
process tells each person once; then it sends one email listing them and writes down what was
sent, only while the lease is still its own. A question answered meanwhile is dropped; one the
person has open in a tab is not mailed. A failed send (SMTP down) tries again after
NOTIFY_BACKOFF, the last step repeating until it goes out. After a notice is sent, it is due
again as a reminder REMIND_AFTER after the question was asked, then at most once a day.

`now` is a parameter throughout, so the tests drive the clock.
"""

import logging
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import Case, F, Max, Min, Q, Value, When
from django.db.models.functions import Coalesce

from elicitation.models import Part
from elicitation.zones import zone_of
from playground.jobs.claim import claim
from playground.notify import mail
from playground.notify.models import Notice, NotifySettings, Sent
from playground.notify.presence import live_tabs
from playground.notify.recipients import recipients_for

logger = logging.getLogger(__name__)

LEASE_SECONDS = 60  # well beyond EMAIL_TIMEOUT: one process sends each batch
ONE_DAY = timedelta(days=1)


def notice_new_part(sender, instance: Part, created: bool, **kwargs) -> None:
    """When a pending question is saved: owe its people a notice (`post_save` of Part)."""
    if not created or instance.state != Part.State.PENDING:
        return
    due = instance.created_at + timedelta(seconds=settings.NOTIFY_AFTER_SECONDS)
    Notice.objects.bulk_create(
        [Notice(part=instance, user_id=uid, due_at=due) for uid in recipients_for(instance)],
        ignore_conflicts=True,
    )


def notice_escalated(part: Part, now: datetime) -> None:
    """When a waiting question is asked of more people (escalation): owe each newcomer a
    notice after the grace period, as for a new question; those owed one keep theirs."""
    due = now + timedelta(seconds=settings.NOTIFY_AFTER_SECONDS)
    Notice.objects.bulk_create(
        [Notice(part=part, user_id=uid, due_at=due) for uid in recipients_for(part)],
        ignore_conflicts=True,
    )


@dataclass
class Batch:
    """One person's notices, leased together, and what to tell them."""

    user_id: int
    notices: list[Notice]  # leased: each holds the claim's token
    email: Callable | None = None  # composes the EmailMessage to send, if any, as it goes
    browser: dict | None = None  # the browser notification to show, if any
    told: list[Notice] = field(default_factory=list)  # what the email or browser covers
    # What `plan` decided besides, written down for the whole round by `plan_all`:
    prefs: NotifySettings = field(default_factory=NotifySettings)
    answered: list[Notice] = field(default_factory=list)  # nothing more to say
    quiet: tuple[datetime, list[Notice]] | None = None  # wait till their quiet hours end
    seen: list[Notice] = field(default_factory=list)  # in view in a tab: a reminder later


def claim_due(now: datetime, limit: int) -> tuple[list[Batch], datetime | None]:
    """Lease the due notices of up to `limit` people, committed before anything is sent;
    return them, and when to look again.

    A person's notices go together: when the first falls due and more of theirs fall due
    within NOTIFY_BATCH_SECONDS, the batch waits for those (at most that long), so a burst of
    questions is one email.
    """
    pending = Notice.objects.filter(status=Notice.Status.PENDING)
    window = timedelta(seconds=settings.NOTIFY_BATCH_SECONDS)
    # Each person's first and last notice due within the window, counted by the database (in
    # Python, a burst's ten thousand rows took a tenth of a second a round).
    people = (
        pending.filter(due_at__lte=now + window)
        .values("user_id")
        .annotate(first=Min("due_at"), last=Max("due_at"))
        .filter(first__lte=now)
    )
    whole = Q(first__lte=now - window) | Q(last__lte=now)  # the window is up, or none to come
    ready = list(people.filter(whole).order_by("first").values_list("user_id", flat=True)[:limit])
    waiting = people.exclude(whole).aggregate(soonest=Min("first"))["soonest"]
    waiting_until = [waiting + window] if waiting else []
    batches = []
    if ready:
        token, ids = claim(
            pending.filter(due_at__lte=now, user_id__in=ready),
            order_by=("pk",),
            limit=None,  # a person's due notices go together
            token_field="lease_token",
            due_at=now + timedelta(seconds=LEASE_SECONDS),
        )
        leased = Notice.objects.filter(pk__in=ids, lease_token=token)
        grouped = defaultdict(list)
        for notice in leased.select_related("part__conversation__agent").order_by("part_id"):
            grouped[notice.user_id].append(notice)
        batches = [Batch(uid, notices) for uid, notices in grouped.items()]
    later = pending.filter(due_at__gt=now).aggregate(next_due=Min("due_at"))["next_due"]
    next_due = min(filter(None, [later, *waiting_until]), default=None)
    if len(batches) == limit:
        next_due = now  # more people may be due
    return batches, next_due


def plan(batch: Batch, now: datetime, person, prefs: NotifySettings, tabs: set[int]) -> None:
    """Decide what the batch sends to `person` (None: gone), given their settings and the
    conversations they have open in `tabs`: drop answered questions and ones open in a tab,
    wait out quiet hours, then fill in the email and the browser notification. Nothing is
    written here (see `plan_all`)."""
    batch.prefs = prefs
    batch.answered = [n for n in batch.notices if n.part.state != Part.State.PENDING]
    waiting = [n for n in batch.notices if n.part.state == Part.State.PENDING]
    if person is None or not waiting:
        return
    quiet_end = _quiet_until(prefs, zone_of(person), now)
    if quiet_end is not None:
        batch.quiet = (quiet_end, waiting)
        return
    # In view in a tab: nothing to send, but a reminder later if it still waits.
    batch.seen = [n for n in waiting if n.part.conversation_id in tabs]
    unseen = [n for n in waiting if n.part.conversation_id not in tabs]
    if not unseen:
        return
    questions = [_question(notice) for notice in unseen]
    batch.told = unseen
    if tabs:
        first = questions[0]
        batch.browser = {
            "title": mail.subject(questions),
            "body": mail.one_line(first.message, 200),
            "url": first.link,
            "tag": f"notify-{unseen[0].pk}-{unseen[0].reminders}",
        }
    if prefs.email and _mailable(person.email):
        # Composed as it is sent, off the database's thread and connection.
        batch.email = partial(mail.compose, person.email, person.get_username(), questions)


def plan_all(batches: list[Batch], now: datetime) -> list[Batch]:
    """Plan each batch (see `plan`), reading the people, their settings and their open tabs
    once for all; return the ones planned. One that fails stays leased: it goes out again
    when its lease runs out, and the others go now."""
    ids = [batch.user_id for batch in batches]
    people = get_user_model().objects.select_related("time_zone").in_bulk(ids)
    prefs = _settings_of(ids)
    tabs = defaultdict(set)
    for user_id, conversation_id in live_tabs(ids).values_list("user_id", "conversation_id"):
        tabs[user_id].add(conversation_id)
    planned = []
    for batch in batches:
        uid = batch.user_id
        try:
            plan(batch, now, people.get(uid), prefs[uid], tabs[uid])
        except Exception:
            logger.exception("planning the notifications of user %s failed", batch.user_id)
            continue
        planned.append(batch)
    # A few statements for the round, not a few a person: on SQLite each write waits its turn
    # behind the answers', on PostgreSQL each is a round trip.
    with transaction.atomic():
        _mine([n for batch in planned for n in batch.answered]).update(
            status=Notice.Status.DONE, lease_token=""
        )
        for batch in planned:
            if batch.quiet is not None:
                due_at, waiting = batch.quiet
                _mine(waiting).update(due_at=due_at, lease_token="")
        _schedule_next([(batch.seen, batch.prefs) for batch in planned], now)
    return planned


def record_all(
    batches: list[Batch], now: datetime, errors: dict[int, str], shown: dict[int, bool]
) -> None:
    """Write down what each batch sent, if its lease is still its own: its email's error by
    person ("" or none: sent; tried again after NOTIFY_BACKOFF), whether its browser
    notification was shown; then a reminder later, or nothing more. One transaction."""
    told = [batch for batch in batches if batch.told]
    with transaction.atomic():
        leased = set(_mine([n for b in told for n in b.told]).values_list("pk", flat=True))
        done, sent = [], []
        for batch in told:
            if not leased.issuperset(n.pk for n in batch.told):
                logger.warning("notification batch of user %s lost its lease", batch.user_id)
                continue
            channels = [Sent.Channel.BROWSER] if shown.get(batch.user_id) else []
            if error := errors.get(batch.user_id, ""):
                _failed(batch.told, error, now)
            else:
                channels += [Sent.Channel.EMAIL] if batch.email is not None else []
                done.append((batch.told, batch.prefs))
            sent += [
                Sent(notice=n, channel=c, reminder=n.told_at is not None)
                for n in batch.told
                for c in channels
            ]
        Sent.objects.bulk_create(sent)
        _schedule_next(done, now)


def _settings_of(user_ids: list[int]) -> "defaultdict[int, NotifySettings]":
    """Return the people's notification settings; the defaults for who has none saved."""
    saved = NotifySettings.objects.filter(user_id__in=user_ids)
    return defaultdict(NotifySettings, {prefs.user_id: prefs for prefs in saved})


def _failed(notices: list[Notice], error: str, now: datetime) -> None:
    attempts = notices[0].attempts + 1
    backoff = settings.NOTIFY_BACKOFF
    retry = now + timedelta(seconds=backoff[min(attempts, len(backoff)) - 1])
    _mine(notices).update(attempts=attempts, last_error=error[:300], due_at=retry, lease_token="")


def _schedule_next(told: list[tuple[list[Notice], NotifySettings]], now: datetime) -> None:
    """After telling (or showing) people their notices: a reminder later, or nothing more.
    A few UPDATEs for a round, of the rows still leased: the same values for each, but a first
    reminder's time, which is its question's."""
    after = timedelta(seconds=settings.NOTIFY_AFTER_SECONDS)
    again = now + max(ONE_DAY, timedelta(seconds=settings.REMIND_AFTER))
    firsts, later, finished = [], [], []
    for notices, prefs in told:
        for notice in notices:
            if not prefs.reminders:
                finished.append(notice)
            elif notice.told_at is None:
                remind = notice.part.created_at + timedelta(seconds=settings.REMIND_AFTER)
                notice.due_at = max(remind, now + after)  # for the bulk_update below
                firsts.append(notice)
            else:
                later.append(notice)
    if not firsts + later + finished:
        return
    _mine(firsts).bulk_update(firsts, ["due_at"])  # each at its own time, in one statement
    _mine(later).update(due_at=again)
    _mine(finished).update(status=Notice.Status.DONE)
    # Reminders counted before told_at is set: an UPDATE reads each row as it was.
    told_before = Case(When(told_at__isnull=False, then=Value(1)), default=Value(0))
    _mine(firsts + later + finished).update(
        lease_token="",
        attempts=0,
        last_error="",
        reminders=F("reminders") + told_before,
        told_at=Coalesce(F("told_at"), Value(now)),
    )


def _mine(notices: list[Notice]):
    """The notices still leased as they were read: a sender whose lease ran out writes
    nothing over the next one's."""
    return Notice.objects.filter(
        pk__in=[n.pk for n in notices], lease_token__in={n.lease_token for n in notices}
    )


def _quiet_until(prefs: NotifySettings, zone, now: datetime) -> datetime | None:
    """Return when the person's quiet hours end, if `now` falls in them."""
    start, end = prefs.quiet_from, prefs.quiet_until
    if start is None or end is None or start == end:
        return None
    local = now.astimezone(zone)
    time = local.time()
    inside = start <= time < end if start < end else (time >= start or time < end)
    if not inside:
        return None
    ends = datetime.combine(local.date(), end, tzinfo=zone)
    if ends <= local:
        ends = datetime.combine(local.date() + ONE_DAY, end, tzinfo=zone)
    return ends


def _question(notice: Notice) -> mail.Question:
    part = notice.part
    return mail.Question(
        agent=part.conversation.agent.name,
        message=part.message or "A question waits for you.",
        link=mail.deep_link(part.pk),
        reminder=notice.told_at is not None,
    )


def _mailable(address: str) -> bool:
    try:
        validate_email(address)
    except ValidationError:
        return False
    return True

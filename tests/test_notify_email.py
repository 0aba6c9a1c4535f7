"""A question nobody has open is emailed after the grace period: its message, its agent and a
link to it, never an answer; one email for a burst; reminders; answered first, nothing sent."""

import json
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth.models import User
from django.test import Client

from elicitation.models import Part
from playground.notify import sender
from playground.notify.models import Notice, Sent
from tests.support.runtime_helpers import answer, send, start
from tests.support.smtp_support import Inbox, SmtpServer, text_of

pytestmark = pytest.mark.django_db(transaction=True)


def question(message: str = "Which environment should I deploy to?") -> str:
    schema = {"type": "object", "properties": {"environment": {"type": "string"}}}
    return json.dumps({"message": message, "requestedSchema": schema})


@pytest.fixture
def smtp(settings):
    server = SmtpServer()
    server.start()
    settings.MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {"host": "127.0.0.1", "port": server.port, "timeout": 5},
        }
    }
    settings.SITE_URL = "https://playground.example"
    yield server
    server.stop()


@pytest.fixture
def ada(client, seeded) -> User:
    person = User.objects.create_user("ada", email="ada@example.com", password="ada-password-1")
    client.force_login(person)
    return person


def ask(client, person, message: str = "Which environment should I deploy to?") -> Part:
    conversation = start(person, "schema-tester")
    send(client, conversation, question(message))
    return conversation.parts.get()


def run_at(moment) -> int:
    """Send what is due at `moment` (the tests' clock)."""
    return async_to_sync(sender.send_due)(moment)


def test_a_waiting_question_is_emailed_after_the_grace_period_with_a_deep_link(client, ada, smtp):
    part = ask(client, ada)

    assert run_at(part.created_at + timedelta(seconds=59)) == 0
    assert smtp.mails == []
    run_at(part.created_at + timedelta(seconds=61))

    [mail] = smtp.mails
    assert mail["To"] == "ada@example.com"
    assert mail["Subject"] == "Schema tester asks: Which environment should I deploy to?"
    link = f"https://playground.example/q/{part.pk}/"
    assert link in text_of(mail)
    assert "Which environment should I deploy to?" in text_of(mail)
    assert Sent.objects.filter(channel="email", reminder=False).count() == 1


def test_a_question_answered_within_the_grace_period_sends_nothing(client, ada, smtp):
    part = ask(client, ada)
    assert answer(client, part, environment="production").status_code == 200

    run_at(part.created_at + timedelta(seconds=61))
    run_at(part.created_at + timedelta(days=2))

    assert smtp.mails == []
    assert Notice.objects.get().status == "done"


def test_a_burst_of_questions_is_one_email_listing_them(client, ada, smtp):
    parts = [ask(client, ada, f"Deploy service {n}?") for n in range(5)]
    last = parts[-1].created_at

    run_at(last + timedelta(seconds=61))

    [mail] = smtp.mails
    assert mail["Subject"] == "5 questions wait for your answer"
    body = text_of(mail)
    for part in parts:
        assert part.message in body and f"/q/{part.pk}/" in body


def asked_later(first: Part, second: Part, seconds: float) -> None:
    """Make `second` asked `seconds` after `first` (the tests' clock)."""
    asked = first.created_at + timedelta(seconds=seconds)
    Part.objects.filter(pk=second.pk).update(created_at=asked)
    Notice.objects.filter(part=second).update(due_at=asked + timedelta(seconds=60))


def test_a_question_asked_soon_after_joins_the_first_ones_email(client, ada, smtp):
    first = ask(client, ada, "Deploy the API?")
    second = ask(client, ada, "Deploy the web app?")
    asked_later(first, second, 20)  # within the default batching window, 25 s

    # The first is due, but the second falls due within the batching window: wait for it.
    assert run_at(first.created_at + timedelta(seconds=61)) == 0
    run_at(first.created_at + timedelta(seconds=81))

    [mail] = smtp.mails
    assert mail["Subject"] == "2 questions wait for your answer"


def test_the_first_question_waits_for_others_at_most_the_batching_window(client, ada, smtp):
    first = ask(client, ada, "Deploy the API?")
    second = ask(client, ada, "Deploy the web app?")
    asked_later(first, second, 28)  # falls due after the window closes

    # Grace period 60 s + window 25 s: the first goes out alone, 5 s inside grace + 30 s.
    assert run_at(first.created_at + timedelta(seconds=84)) == 0
    run_at(first.created_at + timedelta(seconds=85))
    [mail] = smtp.mails
    assert mail["Subject"] == "Schema tester asks: Deploy the API?"

    run_at(first.created_at + timedelta(seconds=28 + 61))
    assert [m["Subject"] for m in smtp.mails][1] == "Schema tester asks: Deploy the web app?"


def test_a_question_still_waiting_is_reminded_of_at_most_once_a_day(client, ada, smtp):
    part = ask(client, ada)
    asked = part.created_at
    run_at(asked + timedelta(seconds=61))
    run_at(asked + timedelta(hours=23))
    assert len(smtp.mails) == 1

    run_at(asked + timedelta(hours=24, seconds=1))
    assert len(smtp.mails) == 2
    assert smtp.mails[1]["Subject"].startswith("Schema tester still asks: Which environment")
    run_at(asked + timedelta(hours=47))
    assert len(smtp.mails) == 2
    run_at(asked + timedelta(hours=48, seconds=2))
    assert len(smtp.mails) == 3
    assert list(Sent.objects.values_list("reminder", flat=True)) == [False, True, True]

    assert answer(client, part, environment="staging").status_code == 200
    run_at(asked + timedelta(days=5))
    assert len(smtp.mails) == 3


def test_the_email_never_holds_what_a_person_typed(client, ada, smtp):
    typed = ask(client, ada, "Deploy the API?")  # answered: its value must appear nowhere
    assert answer(client, typed, environment="secret-staging-42").status_code == 200
    part = ask(client, ada, "Which region?")

    run_at(part.created_at + timedelta(seconds=61))

    [mail] = smtp.mails
    assert "secret-staging-42" not in mail.as_string()
    assert "Deploy the API?" not in mail.as_string()


def test_a_question_with_newlines_cannot_add_a_mail_header(client, ada, smtp):
    part = ask(client, ada, "Approve?\r\nBcc: eve@example.com\r\nX-Evil: yes")

    run_at(part.created_at + timedelta(seconds=61))

    [mail] = smtp.mails
    assert mail["Bcc"] is None and mail["X-Evil"] is None
    assert mail["X-Envelope-To"] == "ada@example.com"
    assert mail["Subject"] == "Schema tester asks: Approve? Bcc: eve@example.com X-Evil: yes"


def test_with_email_off_nothing_is_mailed(client, ada, smtp):
    client.post("/settings/notifications", {"reminders": "on"})
    part = ask(client, ada)

    run_at(part.created_at + timedelta(seconds=61))

    assert smtp.mails == []


def test_with_smtp_down_asking_and_answering_work_and_the_mail_goes_out_once_it_is_back(
    client, ada, smtp, settings
):
    settings.NOTIFY_BACKOFF = [5.0, 30.0]
    smtp.stop()
    part = ask(client, ada)
    other = ask(client, ada, "Deploy the web app?")
    assert answer(client, other, environment="staging").status_code == 200
    asked = part.created_at

    run_at(asked + timedelta(seconds=61))
    notice = Notice.objects.get(part=part)
    assert (notice.attempts, notice.status) == (1, "pending")
    assert "Connection refused" in notice.last_error or "Errno" in notice.last_error
    run_at(asked + timedelta(seconds=67))
    run_at(asked + timedelta(seconds=98))
    assert Notice.objects.get(part=part).attempts == 3  # the last step of the backoff repeats

    smtp.start()
    run_at(asked + timedelta(seconds=129))
    run_at(asked + timedelta(seconds=200))

    [mail] = smtp.mails
    assert mail["Subject"] == "Schema tester asks: Which environment should I deploy to?"
    notice = Notice.objects.get(part=part)
    assert (notice.attempts, notice.last_error) == (0, "")
    assert Sent.objects.filter(notice=notice).count() == 1


def test_the_settings_page_keeps_what_it_was_given_and_refuses_half_quiet_hours(client, ada):
    page = client.get("/settings/notifications")
    assert page.status_code == 200 and "Quiet hours" in page.content.decode()

    refused = client.post("/settings/notifications", {"email": "on", "quiet_from": "22:00"})
    assert refused.status_code == 422
    assert "both a start and an end" in refused.content.decode()
    assert 'value="22:00"' in refused.content.decode()  # what was typed stays

    client.post(
        "/settings/notifications",
        {"reminders": "on", "quiet_from": "22:00", "quiet_until": "07:00"},
    )
    settings = ada.notify_settings
    settings.refresh_from_db()
    assert (settings.email, settings.reminders) == (False, True)
    assert str(settings.quiet_from) == "22:00:00"


def test_nothing_is_sent_in_quiet_hours_and_it_goes_out_when_they_end(client, ada, smtp):
    assert client.post("/settings/", {"time_zone": "Asia/Tokyo"}).status_code == 200
    client.post(
        "/settings/notifications",
        {"email": "on", "reminders": "on", "quiet_from": "22:00", "quiet_until": "07:00"},
    )
    part = ask(client, ada)
    tokyo = ZoneInfo("Asia/Tokyo")
    Notice.objects.update(due_at=datetime(2026, 12, 2, 23, 30, tzinfo=tokyo))

    run_at(datetime(2026, 12, 2, 23, 31, tzinfo=tokyo))
    assert smtp.mails == []
    assert Notice.objects.get().due_at == datetime(2026, 12, 3, 7, 0, tzinfo=tokyo)
    run_at(datetime(2026, 12, 3, 6, 59, tzinfo=tokyo))
    assert smtp.mails == []
    run_at(datetime(2026, 12, 3, 7, 0, 1, tzinfo=tokyo))
    [mail] = smtp.mails
    assert f"/q/{part.pk}/" in text_of(mail)


def test_someone_else_cannot_see_or_change_your_settings(client, ada):
    client.post("/settings/notifications", {"email": "on"})
    bob = User.objects.create_user("bob", email="bob@example.com")
    other = Client()
    other.force_login(bob)

    other.post("/settings/notifications", {"quiet_from": "01:00", "quiet_until": "02:00"})

    ada.notify_settings.refresh_from_db()
    assert ada.notify_settings.email is True and ada.notify_settings.quiet_from is None
    assert "01:00" not in client.get("/settings/notifications").content.decode()


def test_the_deep_link_needs_a_login_and_is_a_404_for_anyone_else(client, ada, smtp):
    part = ask(client, ada)
    run_at(part.created_at + timedelta(seconds=61))
    link = next(line for line in text_of(smtp.mails[0]).splitlines() if "Answer it:" in line)
    path = link.split("https://playground.example", 1)[1]
    at_the_question = f"{part.conversation.get_absolute_url()}#part-{part.pk}"

    assert client.get(path)["Location"] == at_the_question  # ada's own
    anonymous = Client()
    to_login = anonymous.get(path)
    assert to_login.status_code == 302 and to_login["Location"].startswith("/accounts/login/")
    # Logging in first still ends at the question: the login page's `next` keeps the whole link.
    ada.set_password("ada-password-1")
    ada.save()
    logged_in = anonymous.post(
        to_login["Location"], {"username": "ada", "password": "ada-password-1"}
    )
    assert anonymous.get(logged_in["Location"])["Location"] == at_the_question
    stranger = Client()
    stranger.force_login(User.objects.create_user("eve", email="eve@example.com"))
    assert stranger.get(path).status_code == 404


def test_staff_see_each_notice_and_what_was_sent_in_the_admin(client, ada, smtp):
    part = ask(client, ada)
    run_at(part.created_at + timedelta(seconds=61))
    staff = Client()
    staff.force_login(User.objects.create_superuser("root"))

    listed = staff.get("/admin/notify/notice/").content.decode()
    notice = Notice.objects.get()
    assert f"/admin/notify/notice/{notice.pk}/change/" in listed
    page = staff.get(f"/admin/notify/notice/{notice.pk}/change/").content.decode()
    assert "Email" in page and "ada" in page
    # The question's review shows it on its timeline, between asking and answering.
    review = staff.get(f"/admin/elicitation/part/{part.pk}/change/").content.decode()
    timeline = review.split('<ol class="timeline">', 1)[1].split("</ol>", 1)[0]
    told = timeline.index("Told ada (email)")
    assert timeline.index("Asked") < told < timeline.index("not yet")


def test_a_routed_question_is_emailed_to_everyone_who_may_answer_it(client, ada, smtp):
    """Routing decides who is told: the group's members and the owner, never anyone else."""
    from django.contrib.auth.models import Group

    managers = Group.objects.create(name="release-managers")
    bob = User.objects.create_user("bob", email="bob@example.com", password="bob-password-1")
    User.objects.create_user("carol", email="carol@example.com", password="carol-pass-1")
    managers.user_set.add(ada, bob)
    conversation = start(ada, "test-routed")
    send(client, conversation, "group:release-managers")
    part = conversation.parts.get()
    assert part.ask == ["group:release-managers"]

    run_at(part.created_at + timedelta(seconds=61))
    assert sorted(mail["To"] for mail in smtp.mails) == ["ada@example.com", "bob@example.com"]


def test_people_added_by_an_escalation_are_emailed_after_the_grace_period(client, ada, smtp):
    """Escalation adds people to a waiting question, and tells them as of a new question."""
    from django.contrib.auth.models import Group

    from playground.runs.background_jobs import escalate

    bob = User.objects.create_user("bob", email="bob@example.com", password="bob-password-1")
    dana = User.objects.create_user("dana", email="dana@example.com", password="dana-pass-1")
    Group.objects.create(name="release-managers").user_set.add(ada, bob, dana)
    conversation = start(ada, "test-escalating")
    send(client, conversation, "release")
    part = conversation.parts.get()
    run_at(part.created_at + timedelta(seconds=61))
    assert sorted(mail["To"] for mail in smtp.mails) == ["ada@example.com", "bob@example.com"]

    Part.objects.filter(pk=part.pk).update(escalate_at=part.created_at)  # the minute is up
    assert escalate() == [part.pk]
    part.refresh_from_db()
    run_at(part.escalated_at + timedelta(seconds=59))
    assert len(smtp.mails) == 2  # the grace period, as for a new question
    run_at(part.escalated_at + timedelta(seconds=61))
    assert [mail["To"] for mail in smtp.mails[2:]] == ["dana@example.com"]
    assert "Which version should I release?" in text_of(smtp.mails[2])


class CountingInbox(Inbox):
    """Counts SMTP connections (one EHLO each) and refuses one address."""

    def __init__(self, refused: str):
        super().__init__()
        self.connections = 0
        self.refused = refused

    async def handle_EHLO(self, server, session, envelope, hostname, responses):
        self.connections += 1
        session.host_name = hostname
        return responses

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address == self.refused:
            return "550 5.1.1 No such mailbox"
        envelope.rcpt_tos.append(address)
        return "250 OK"


def test_a_rounds_mails_share_a_connection_and_a_refused_one_holds_back_no_other(
    client, seeded, smtp
):
    smtp.stop()
    smtp.inbox = CountingInbox(refused="p2@example.com")
    smtp.start()
    parts = {}
    for number in range(5):
        person = User.objects.create_user(f"p{number}", email=f"p{number}@example.com")
        client.force_login(person)
        parts[person.email] = ask(client, person)

    run_at(max(part.created_at for part in parts.values()) + timedelta(seconds=61))

    assert sorted(mail["To"] for mail in smtp.mails) == [
        "p0@example.com",
        "p1@example.com",
        "p3@example.com",
        "p4@example.com",
    ]
    # The round's five mails in shares over SMTP_CONNECTIONS (4) at once: two, two and one
    # (p2 shares with p3), and one more after the refusal closed p2's.
    assert sender.SMTP_CONNECTIONS == 4
    assert smtp.inbox.connections == 4
    refused = Notice.objects.get(part=parts["p2@example.com"])
    assert (refused.attempts, refused.status) == (1, "pending")
    assert "No such mailbox" in refused.last_error

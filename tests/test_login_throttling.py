"""Five wrong passwords for one username pause logging in with it, with a page that says so."""

import io
from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.core.management import call_command
from django.utils import timezone

LOGIN = "/accounts/login/"


def log_in(client, username: str, password: str, address: str = "203.0.113.7"):
    return client.post(LOGIN, {"username": username, "password": password}, REMOTE_ADDR=address)


def five_wrong_passwords(client, username: str = "alice"):
    for attempt in range(4):
        assert log_in(client, username, "wrong", address=f"203.0.113.{attempt}").status_code == 200
    return log_in(client, username, "wrong", address="203.0.113.99")


@pytest.mark.django_db
def test_the_fifth_wrong_password_pauses_the_username_with_a_clear_page(client, alice):
    locked = five_wrong_passwords(client)

    assert locked.status_code == 429
    page = " ".join(locked.content.decode().split())
    assert "Logging in is paused" in page
    assert "5 wrong passwords in a row for <strong>alice</strong>" in page
    assert "paused for 15 minutes after the last attempt" in page


@pytest.mark.django_db
def test_the_right_password_from_anywhere_waits_too(client, alice):
    five_wrong_passwords(client)

    response = log_in(client, "alice", "alice-password-1", address="198.51.100.1")

    assert response.status_code == 429
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_other_usernames_still_log_in(client, alice, bob):
    five_wrong_passwords(client)

    response = log_in(client, "bob", "bob-password-1")

    assert response.status_code == 302 and response["Location"] == "/"


@pytest.mark.django_db
def test_a_successful_login_starts_the_count_again(client, alice):
    for _ in range(4):
        log_in(client, "alice", "wrong")
    assert log_in(client, "alice", "alice-password-1").status_code == 302
    client.logout()

    for _ in range(4):
        assert log_in(client, "alice", "wrong").status_code == 200
    assert log_in(client, "alice", "alice-password-1").status_code == 302


@pytest.mark.django_db
def test_the_pause_ends_after_fifteen_minutes(client, alice):
    five_wrong_passwords(client)
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=16))

    response = log_in(client, "alice", "alice-password-1")

    assert response.status_code == 302


@pytest.mark.django_db
def test_an_administrator_can_unlock_a_username_early(client, alice):
    five_wrong_passwords(client)

    call_command("axes_reset_username", "alice", stdout=io.StringIO())

    assert log_in(client, "alice", "alice-password-1").status_code == 302

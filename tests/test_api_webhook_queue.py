"""The webhook queue: a claimed delivery is leased, and only its lease holder writes it down."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from elicitation.models import Part
from playground.api.models import DeliveryAttempt, WebhookDelivery
from playground.api.webhooks import LEASE_SECONDS, claim_due, record_attempt
from tests.support.api_support import ASK, ApiClient
from tests.support.runtime_helpers import answer

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def delivery(alice, settings) -> WebhookDelivery:
    """A delivery owed for an answered question, after its first try (made at once, with no
    server running), which the address check refused."""
    settings.API_WEBHOOK_BACKOFF = [5.0, 5.0]
    api = ApiClient(alice, webhook_url="http://127.0.0.1:9/hook")
    conversation_id = api.open_conversation()
    part = Part.objects.get(
        pk=api.post(f"/conversations/{conversation_id}/requests", ASK).json()["id"]
    )
    person = Client()
    person.force_login(alice)
    assert answer(person, part, env="staging").status_code == 200
    delivery = WebhookDelivery.objects.get()
    assert [a.error for a in delivery.tries.all()] == ["127.0.0.1 is a private or local address."]
    assert (delivery.status, delivery.attempts) == ("pending", 1)
    return delivery


def fall_due(delivery: WebhookDelivery) -> None:
    """Move the delivery's next attempt (its retry, or the end of its lease) to now."""
    WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())


def test_a_claimed_delivery_is_not_claimed_again_until_its_lease_runs_out(delivery):
    assert claim_due(10)[0] == []  # its retry is not due yet
    fall_due(delivery)
    (first,), next_due = claim_due(10)
    assert first.webhook_id == str(delivery.webhook_id)
    assert claim_due(10)[0] == []  # leased
    assert next_due > timezone.now() + timedelta(seconds=LEASE_SECONDS - 5)

    fall_due(delivery)
    (again,), _ = claim_due(10)
    assert (again.webhook_id, again.attempts) == (first.webhook_id, 1)  # the same attempt
    assert again.lease_token != first.lease_token


def test_only_the_lease_holder_writes_its_attempt_and_the_new_state_together(delivery):
    fall_due(delivery)
    (first,), _ = claim_due(10)
    fall_due(delivery)
    (second,), _ = claim_due(10)

    assert record_attempt(first, 200, "") is False
    assert DeliveryAttempt.objects.count() == 1
    assert record_attempt(second, 500, "") is True
    delivery.refresh_from_db()
    assert [a.status_code for a in delivery.tries.all()] == [None, 500]
    assert (delivery.status, delivery.attempts, delivery.lease_token) == ("pending", 2, "")
    assert delivery.next_attempt_at > timezone.now() + timedelta(seconds=4)

    fall_due(delivery)
    (last,), _ = claim_due(10)
    assert record_attempt(last, None, "Connection refused") is True
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == ("failed", 3)  # two retries, then it gives up


def test_staff_find_a_delivery_by_its_webhook_id_and_see_its_tries(delivery):
    staff = Client()
    staff.force_login(User.objects.create_superuser("root"))

    found = staff.get("/admin/api/webhookdelivery/", {"q": str(delivery.webhook_id)})
    assert f"/admin/api/webhookdelivery/{delivery.pk}/change/" in found.content.decode()
    page = staff.get(f"/admin/api/webhookdelivery/{delivery.pk}/change/").content.decode()
    assert str(delivery.webhook_id) in page
    assert "127.0.0.1 is a private or local address." in page

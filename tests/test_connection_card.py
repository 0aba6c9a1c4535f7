"""A `connection` card: the credential posts to the vault, which keeps it sealed and settles the
card with a reference; the secret is nowhere else (rows, raw database, log, pages, wire)."""

import json

import pytest
from django.contrib.auth.models import User
from django.test import Client

from elicitation.exports import export_csv, export_jsonl
from elicitation.models import Part
from playground.connections.models import Connection
from tests.support.connections_support import (
    GOOD_TOKEN,
    WRONG_TOKEN,
    capture_logs,
    digest,
    everything_stored,
    raw_database,
)
from tests.support.runtime_helpers import answer, pending, said, send, start

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def card(demo, client, alice) -> Part:
    client.force_login(alice)
    conversation = start(alice, "test-connection")
    send(client, conversation, "go")
    return pending(conversation)


def connect(client, part, token=GOOD_TOKEN, **data):
    data = {"field.token": token, "field.region": "us", "label": "Work", "connect": "1"} | data
    return client.post(f"/parts/{part.pk}/connect", data, HTTP_HX_REQUEST="true")


def assert_secret_nowhere(client, part, *secrets):
    """Look for each secret in every table, the raw database, the person's pages, the admin's
    page of the part and both exports."""
    pages = [
        client.get(f"/c/{part.conversation_id}/").content.decode(),
        client.get(f"/parts/{part.pk}/wire").content.decode(),
        client.get("/connections/").content.decode(),
    ]
    staff = Client()
    staff.force_login(User.objects.create_superuser(f"root{part.pk}", password="root-pass-1"))
    pages.append(staff.get(f"/admin/elicitation/part/{part.pk}/change/").content.decode())
    for export in (export_csv, export_jsonl):
        pages.append(b"".join(export(Part.objects.all()).streaming_content).decode())
    for secret in secrets:
        assert secret not in everything_stored()
        assert secret.encode() not in raw_database()
        for page in pages:
            assert secret not in page


def test_the_card_names_the_agent_and_the_service_and_posts_to_the_vault(client, card):
    html = client.get(f"/c/{card.conversation_id}/").content.decode()
    assert "test-connection asks to use your Demo connection" in html
    assert "I need your Demo account to go on." in html
    assert f'hx-post="/parts/{card.pk}/connect"' in html
    assert 'name="field.token" type="password"' in html
    assert "Use your existing" not in html  # alice has none yet
    # Decline and Cancel go to the settle endpoint, in a form of their own.
    assert f'<form class="connection-refuse" hx-post="/parts/{card.pk}/settle"' in html


def test_connecting_keeps_the_credential_and_the_agent_gets_only_a_reference(
    client, card, alice, caplog
):
    capture_logs(caplog)
    response = connect(client, card)
    assert response.status_code == 200
    assert "Connected: Demo “Work”" in response.content.decode()
    [kept] = Connection.objects.filter(owner=alice)
    assert (kept.service, kept.label) == ("demo", "Work")
    assert kept.values() == {"token": GOOD_TOKEN, "region": "us"}
    card.refresh_from_db()
    assert card.response == {
        "action": "accept",
        "content": {"connection": str(kept.pk), "service": "demo", "label": "Work"},
    }
    # The agent opened the credential at the moment of use: it says only a digest.
    assert said(card.conversation)[-1] == f"Using “Work”: token sha256 {digest(GOOD_TOKEN)}"
    kept.refresh_from_db()
    assert kept.last_used_at is not None
    assert_secret_nowhere(client, card, GOOD_TOKEN)
    assert GOOD_TOKEN not in caplog.text


def test_a_credential_the_service_refuses_is_not_kept(client, card, caplog):
    capture_logs(caplog)
    response = connect(client, card, token=WRONG_TOKEN)
    assert response.status_code == 422
    html = response.content.decode()
    assert "Demo refused this credential (HTTP 401): check it and try again." in html
    assert 'value="us"' in html and 'value="Work"' in html  # what is not secret is kept
    assert WRONG_TOKEN not in html
    assert not Connection.objects.exists()
    card.refresh_from_db()
    assert card.is_pending
    assert_secret_nowhere(client, card, WRONG_TOKEN)
    assert WRONG_TOKEN not in caplog.text


def test_a_missing_token_is_asked_for(client, card):
    response = connect(client, card, token="")
    assert response.status_code == 422
    assert "Enter the access token." in response.content.decode()
    assert not Connection.objects.exists()


def test_the_settle_endpoint_takes_no_credential(client, card):
    response = answer(client, card, "accept", token=GOOD_TOKEN)
    assert response.status_code == 400
    assert "a credential is never sent as an answer" in response.content.decode()
    card.refresh_from_db()
    assert card.is_pending
    assert GOOD_TOKEN not in everything_stored()


@pytest.mark.parametrize(("action", "state"), [("decline", "declined"), ("cancel", "cancelled")])
def test_decline_and_cancel_settle_it_like_any_question(client, card, action, state):
    assert answer(client, card, action).status_code == 200
    card.refresh_from_db()
    assert card.state == state
    assert said(card.conversation)[-1] == f"Not connected ({action})."


def test_an_existing_connection_is_offered_and_used(client, demo, alice):
    mine = Connection.store(alice, "demo", "Personal", {"token": GOOD_TOKEN, "region": "eu"})
    client.force_login(alice)
    conversation = start(alice, "test-connection")
    send(client, conversation, "go")
    part = pending(conversation)
    html = client.get(f"/c/{conversation.pk}/").content.decode()
    assert "Use your existing Demo connection" in html and "“Personal”" in html
    response = client.post(f"/parts/{part.pk}/connect", {"use": str(mine.pk)})
    assert response.status_code == 200
    assert said(conversation)[-1] == f"Using “Personal”: token sha256 {digest(GOOD_TOKEN)}"
    assert Connection.objects.count() == 1


def test_someone_elses_card_or_connection_is_not_reachable(client, card, bob):
    theirs = Connection.store(bob, "demo", "Bob's", {"token": "bob-token-1", "region": "eu"})
    client.force_login(bob)
    assert connect(client, card).status_code == 404
    client.force_login(card.conversation.owner)
    response = client.post(f"/parts/{card.pk}/connect", {"use": str(theirs.pk)})
    assert response.status_code == 422
    assert "That connection was revoked meanwhile" in response.content.decode()
    card.refresh_from_db()
    assert card.is_pending


def test_an_agent_that_routes_its_questions_still_asks_only_the_owner(demo, client, alice, bob):
    conversation = start(alice, "test-connection")
    conversation.agent.config = {"routing": {"questions": ["user:bob"]}}
    conversation.agent.save()
    client.force_login(alice)
    send(client, conversation, "go")
    card = pending(conversation)
    assert card.render_kind == "connection" and card.ask == [] and not card.assigned_users.exists()
    other = Client()
    other.force_login(bob)
    assert other.get(f"/c/{conversation.pk}/").status_code == 404
    assert connect(other, card).status_code == 404
    assert f"/parts/{card.pk}" not in other.get("/inbox/").content.decode()


def test_the_vault_form_needs_its_csrf_token(card, alice):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(alice)
    response = browser.post(f"/parts/{card.pk}/connect", {"field.token": GOOD_TOKEN})
    assert response.status_code == 403
    assert not Connection.objects.exists()


def test_a_logged_out_post_is_told_so(client, card):
    client.logout()
    response = connect(client, card)
    assert response.status_code == 401
    assert not Connection.objects.exists()


def test_without_a_vault_key_the_credential_goes_nowhere(client, card, demo, settings):
    settings.CONNECTIONS_KEYS = []
    response = connect(client, card)
    assert response.status_code == 503
    # Said beside the form (nothing swapped, what was typed stays), in the vault's own words.
    refusal = json.loads(response.headers["HX-Trigger"])["requestRefused"]["message"]
    assert refusal.startswith("This playground has no CONNECTIONS_KEY")
    assert demo.requests == []  # not even to the service's test
    assert not Connection.objects.exists()
    assert GOOD_TOKEN not in everything_stored()


def test_without_a_vault_key_the_card_says_so_before_anyone_types(client, card, settings):
    def tag(html: str, marker: str) -> str:
        return html.split(marker)[1].split(">")[0]

    key, settings.CONNECTIONS_KEYS = settings.CONNECTIONS_KEYS, []
    html = client.get(f"/c/{card.conversation_id}/").content.decode()
    assert "Nothing can be connected here: this playground has no CONNECTIONS_KEY" in html
    assert " disabled" in tag(html, 'name="field.token"')
    assert " disabled" in tag(html, 'name="connect"')
    assert " disabled" not in tag(html, 'value="cancel"')  # Cancel still works
    # The card reads the key as it is drawn: once one is set, the same card connects.
    settings.CONNECTIONS_KEYS = key
    html = client.get(f"/c/{card.conversation_id}/").content.decode()
    assert "Nothing can be connected here" not in html
    assert " disabled" not in tag(html, 'name="field.token"')

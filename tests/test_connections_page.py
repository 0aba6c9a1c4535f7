"""The Connections page: list, connect, test, rename, revoke, last used; someone else's
connection is a 404 everywhere; the admin shows metadata only."""

import base64

import pytest
from django.contrib.auth.models import User
from django.test import Client

from playground.connections.models import Connection
from tests.support.connections_support import GOOD_TOKEN, WRONG_TOKEN, everything_stored

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def mine(demo, client, alice) -> Connection:
    client.force_login(alice)
    return Connection.store(alice, "demo", "Work", {"token": GOOD_TOKEN, "region": "eu"})


def page(client) -> str:
    return client.get("/connections/").content.decode()


def test_it_lists_the_persons_connections_without_values(client, mine, bob):
    Connection.store(bob, "demo", "Bob's own", {"token": "bob-token-9"})
    html = page(client)
    assert 'value="Work"' in html and "· Demo" in html and "last used never" in html
    assert "Bob's own" not in html
    assert GOOD_TOKEN not in html


def test_it_connects_a_service_after_checking_the_credential(client, demo, alice):
    client.force_login(alice)
    refused = client.post("/connections/new/demo", {"field.token": WRONG_TOKEN}, follow=True)
    assert "Demo refused this credential (HTTP 401)" in refused.content.decode()
    assert not Connection.objects.exists()
    client.post("/connections/new/demo", {"field.token": GOOD_TOKEN, "label": "Home"})
    assert Connection.objects.get().label == "Home"
    assert GOOD_TOKEN not in page(client) and GOOD_TOKEN not in everything_stored()
    assert WRONG_TOKEN not in everything_stored()


def test_test_rename_and_revoke(client, mine):
    tested = client.post(f"/connections/{mine.pk}/test", follow=True).content.decode()
    assert "“Work” works." in tested
    client.post(f"/connections/{mine.pk}/rename", {"label": "Work laptop"})
    assert Connection.objects.get().label == "Work laptop"
    revoked = client.post(f"/connections/{mine.pk}/revoke", follow=True).content.decode()
    assert "Revoked “Work laptop”: no agent can use it any more." in revoked
    assert not Connection.objects.exists()


def test_a_test_that_fails_says_why(client, mine):
    Connection.objects.filter(pk=mine.pk).delete()
    wrong = Connection.store(mine.owner, "demo", "Old", {"token": WRONG_TOKEN, "region": "eu"})
    html = client.post(f"/connections/{wrong.pk}/test", follow=True).content.decode()
    assert "“Old”: Demo refused this credential (HTTP 401)" in html
    assert WRONG_TOKEN not in html


@pytest.mark.parametrize("action", ["test", "rename", "revoke"])
def test_someone_elses_connection_is_a_404(client, mine, bob, action):
    client.force_login(bob)
    response = client.post(f"/connections/{mine.pk}/{action}", {"label": "Mine now"})
    assert response.status_code == 404
    assert Connection.objects.get().label == "Work"


def test_every_form_needs_its_csrf_token(mine):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(mine.owner)
    for path in ["revoke", "rename", "test"]:
        assert browser.post(f"/connections/{mine.pk}/{path}").status_code == 403
    assert browser.post("/connections/new/demo", {"field.token": "x"}).status_code == 403
    assert Connection.objects.count() == 1


def test_the_admin_shows_metadata_only(client, mine):
    staff = User.objects.create_superuser("root", password="root-password-1")
    client.force_login(staff)
    listed = client.get("/admin/connections/connection/").content.decode()
    assert "Work" in listed and mine.key_id in listed
    change = client.get(f"/admin/connections/connection/{mine.pk}/change/").content.decode()
    assert "Work" in change
    for html in (listed, change):
        assert GOOD_TOKEN not in html
        ciphertext = bytes(mine.sealed)[4:]
        assert ciphertext.hex()[:16] not in html
        assert base64.b64encode(ciphertext).decode()[:16] not in html


def test_without_a_vault_key_the_page_says_so_before_anyone_types(client, demo, alice, settings):
    settings.CONNECTIONS_KEYS = []
    client.force_login(alice)
    assert "This playground has no CONNECTIONS_KEY" in page(client)

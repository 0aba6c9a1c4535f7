"""The API tokens page: a token is shown once, stored hashed, listed and revoked by its owner;
staff revoke any token in the admin."""

import re

import pytest
from django.test import Client

from api.models import ApiToken
from api.tokens import create_token, hash_key


@pytest.fixture
def person(alice) -> Client:
    client = Client()
    client.force_login(alice)
    return client


def test_a_new_token_is_shown_once_and_stored_only_as_a_hash(person):
    response = person.post("/tokens/", {"name": "deploy bot"})
    assert response.status_code == 201
    key = re.search(r'value="(epg_[^"]+)"', response.content.decode()).group(1)
    token = ApiToken.objects.get()
    assert token.key_hash == hash_key(key) and key not in str(token.__dict__)
    listing = person.get("/tokens/").content.decode()
    assert "deploy bot" in listing and token.prefix in listing and key not in listing


def test_a_webhook_url_must_be_public_unless_private_ones_are_allowed(person, settings):
    settings.API_WEBHOOK_ALLOW_PRIVATE = False
    refused = person.post("/tokens/", {"name": "hook", "webhook_url": "http://127.0.0.1:9/x"})
    assert "private or local address" in refused.content.decode()
    ftp = person.post("/tokens/", {"name": "hook", "webhook_url": "ftp://example.com/x"})
    assert ftp.status_code == 200 and not ApiToken.objects.exists()


def test_the_owner_revokes_a_token_and_the_api_refuses_it(person, alice):
    token, key = create_token(alice, "old")
    person.post(f"/tokens/{token.pk}/revoke")
    api = Client(headers={"Authorization": f"Bearer {key}"})
    assert api.get("/api/v1/requests/1").status_code == 401


def test_nobody_else_can_revoke_it(alice, bob):
    token, _ = create_token(alice, "mine")
    stranger = Client()
    stranger.force_login(bob)
    assert stranger.post(f"/tokens/{token.pk}/revoke").status_code == 404
    token.refresh_from_db()
    assert token.is_active


def test_staff_see_and_revoke_tokens_in_the_admin(alice, admin_client):
    token, _ = create_token(alice, "deploy bot")
    listing = admin_client.get("/admin/api/apitoken/").content.decode()
    assert "deploy bot" in listing and token.key_hash not in listing
    admin_client.post(
        "/admin/api/apitoken/", {"action": "revoke_tokens", "_selected_action": [token.pk]}
    )
    token.refresh_from_db()
    assert not token.is_active


def test_the_new_token_sits_in_a_read_only_field_with_a_copy_button(person):
    page = person.post("/tokens/", {"name": "deploy bot"}).content.decode()
    field = re.search(r'<input type="text" id="new-token" value="epg_[^"]+"[^>]*>', page).group()
    assert "readonly" in field
    assert '<button type="button" data-copies="new-token">Copy' in page
    assert "copy.js" in page
    # The form is laid out like the rest of the site, not Django's bare divs.
    assert 'class="field"' in page and 'class="help"' in page

"""The API tokens page: a token is shown once, stored hashed, listed and revoked by its owner;
staff revoke any token in the admin."""

import json
import re
from importlib import import_module

import pytest
from django.conf import settings
from django.contrib.sessions.models import Session
from django.test import Client

from playground.api.models import ApiToken
from playground.api.tokens import create_token, hash_key

SessionStore = import_module(settings.SESSION_ENGINE).SessionStore


@pytest.fixture
def person(alice) -> Client:
    client = Client()
    client.force_login(alice)
    return client


def test_a_new_token_is_shown_once_and_stored_only_as_a_hash(person):
    response = person.post("/tokens/", {"name": "deploy bot"}, follow=True)
    assert response.redirect_chain == [("/tokens/", 302)]  # the key in no URL
    key = re.search(r'value="(epg_[^"]+)"', response.content.decode()).group(1)
    token = ApiToken.objects.get()
    assert token.key_hash == hash_key(key) and key not in str(token.__dict__)
    listing = person.get("/tokens/").content.decode()
    assert "deploy bot" in listing and token.prefix in listing and key not in listing


def sessions_stored() -> str:
    """Return every session as the server keeps it (the database's rows, decoded, and the cache)."""
    keys = Session.objects.values_list("session_key", flat=True)
    kept = [s.get_decoded() for s in Session.objects.all()]
    kept += [SessionStore(session_key=key).load() for key in keys]
    return json.dumps(kept)


def test_the_key_waits_in_the_session_only_until_the_page_shows_it(person):
    person.post("/tokens/", {"name": "deploy bot"})
    [waiting] = [value["key"] for value in person.session.values() if "key" in value]
    assert waiting.startswith("epg_") and waiting in sessions_stored()
    assert waiting in person.get("/tokens/").content.decode()
    assert waiting not in sessions_stored()  # taken out by the page that showed it
    again = person.get("/tokens/").content.decode()  # a reload: shown once, nothing made
    assert waiting not in again and ApiToken.objects.count() == 1


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
    page = person.post("/tokens/", {"name": "deploy bot"}, follow=True).content.decode()
    field = re.search(r'<input type="text" id="new-token" value="epg_[^"]+"[^>]*>', page).group()
    assert "readonly" in field
    assert '<button type="button" data-copies="new-token">Copy' in page
    assert "copy.js" in page
    # The form is laid out like the rest of the site, not Django's bare divs.
    assert 'class="field"' in page and 'class="help"' in page

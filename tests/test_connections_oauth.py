"""Connecting by signing in (OAuth): a remote MCP server that requires authorization, built with
the SDK, names its authorization server (protected-resource metadata); we discover it,
register, send the person there with PKCE and `state`, take the code once at the callback,
keep the tokens sealed and hand the SDK the access token. Renewing takes the row's lock, so two
uses at once refresh once; a grant the provider refuses asks again; revoking here revokes
there. Bad callbacks are refused with nothing stored, and no token, code, verifier or client
secret is anywhere but sealed."""

import threading
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.db import connection as db_connection
from django.test import Client
from django.utils import timezone

from elicitation.models import Part
from playground.connections.models import Connection, OAuthAuthorization, OAuthRegistration, use
from tests.support.connections_support import (
    LocalServer,
    QuietHandler,
    capture_logs,
    everything_stored,
    new_key,
    raw_database,
)
from tests.support.mcp_support import chat_with, http_servers_file
from tests.support.oauth_support import (
    CLIENT_SECRET,
    OAuthTestServer,
    callback_path,
    query,
    services_file,
    sign_in_at_provider,
)
from tests.support.runtime_helpers import pending, said, send

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def provider(request, settings, tmp_path, monkeypatch):
    server = OAuthTestServer()
    request.addfinalizer(server.stop)
    settings.CONNECTIONS_KEYS = [new_key()]
    settings.CONNECTIONS_ALLOW_PRIVATE = True  # the provider is on 127.0.0.1
    settings.CONNECTION_SERVICES_FILE = str(services_file(tmp_path, server))
    monkeypatch.setenv("CALENDAR_CLIENT_SECRET", CLIENT_SECRET)
    return server


@pytest.fixture
def chat(provider, settings, client, alice, tmp_path):
    path = http_servers_file(tmp_path, provider.mcp_url, extra='connection = "notes"\n')
    return chat_with(settings, client, alice, path)


def start_sign_in(client, card: Part) -> str:
    """Press the card's Sign in button; return the provider URL it sends the person to."""
    response = client.post(
        f"/parts/{card.pk}/connect", {"label": "My notes", "connect": "1"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 204, response.content
    return response["HX-Redirect"]


def secrets_of(person) -> list[str]:
    """Every secret value the vault holds for `person`, and our registered client secrets."""
    found = []
    for connection in Connection.objects.filter(owner=person):
        values = connection.values()
        found += [values["access_token"], values["refresh_token"]]
    found += [r.secret() for r in OAuthRegistration.objects.all() if r.secret()]
    return [*found, CLIENT_SECRET]


def assert_nowhere(client, conversation, caplog, *secrets):
    pages = [
        client.get(f"/c/{conversation.pk}/").content.decode(),
        client.get("/connections/").content.decode(),
    ]
    pages += [client.get(f"/parts/{p.pk}/wire").content.decode() for p in conversation.parts.all()]
    for secret in filter(None, secrets):
        assert secret not in everything_stored()
        assert secret.encode() not in raw_database()
        assert secret not in caplog.text
        for page in pages:
            assert secret not in page


def test_signing_in_from_the_card_connects_the_mcp_server_and_calls_its_tool(
    client, alice, chat, provider, caplog
):
    capture_logs(caplog)
    send(client, chat, "whoami")
    card = pending(chat)
    assert card.render_kind == "connection" and card.normalized["signin"] is True
    html = client.get(f"/c/{chat.pk}/").content.decode()
    assert "Sign in to Notes" in html
    assert 'name="field.' not in html  # nothing to type

    authorize = start_sign_in(client, card)
    sent = query(authorize)
    assert urlsplit(authorize).netloc == urlsplit(provider.url).netloc
    assert sent["code_challenge_method"] == "S256" and sent["code_challenge"]
    assert sent["resource"] == provider.mcp_url
    assert sent["redirect_uri"] == "http://testserver/connections/oauth/callback"
    assert provider.stats()["registered"] == 1  # dynamic client registration

    back = sign_in_at_provider(authorize)
    assert query(back)["state"] == sent["state"]
    response = client.get(callback_path(back))
    assert response.status_code == 302
    assert response["Location"] == f"/c/{chat.pk}/#{card.dom_id}"

    card.refresh_from_db()
    [connection] = Connection.objects.filter(owner=alice)
    assert card.response == {
        "action": "accept",
        "content": {"connection": str(connection.id), "service": "notes", "label": "My notes"},
    }
    assert said(chat)[-1].startswith("Signed in as person-1 (token sha256 ")
    assert connection.expires_at > timezone.now()
    assert not OAuthAuthorization.objects.exists()  # the state was used up

    # A state and a code are used once: the same callback again is refused, nothing changes.
    again = client.get(callback_path(back))
    assert again.status_code == 400
    assert "not valid any more" in again.content.decode()
    assert Connection.objects.count() == 1
    assert_nowhere(client, chat, caplog, *secrets_of(alice), sent["state"], query(back)["code"])


def test_a_declared_client_signs_in_from_the_connections_page(client, alice, provider, caplog):
    capture_logs(caplog)
    client.force_login(alice)
    response = client.post("/connections/new/calendar", {"label": "Work calendar"})
    assert response.status_code == 302
    authorize = response["Location"]
    assert query(authorize)["client_id"] == "playground-test-client"
    back = sign_in_at_provider(authorize)
    response = client.get(callback_path(back), follow=True)
    assert "Connected calendar “Work calendar”." in response.content.decode()
    assert provider.stats()["registered"] == 0  # the declared client, not a new one
    [connection] = Connection.objects.filter(owner=alice)
    assert connection.grant["client_id"] == "playground-test-client"
    assert CLIENT_SECRET not in everything_stored()
    assert CLIENT_SECRET not in caplog.text


def _expire(connection: Connection) -> None:
    Connection.objects.filter(pk=connection.pk).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )


def test_two_uses_at_once_renew_a_rotating_grant_once(client, alice, chat, provider):
    send(client, chat, "whoami")
    client.get(callback_path(sign_in_at_provider(start_sign_in(client, pending(chat)))))
    [connection] = Connection.objects.all()
    before = connection.values()["access_token"]
    _expire(connection)

    start, results = threading.Barrier(2), []

    def use_it():
        start.wait(timeout=10)
        try:
            results.append(use(alice, str(connection.id)).values["access_token"])
        finally:
            db_connection.close()

    threads = [threading.Thread(target=use_it) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert len(results) == 2 and results[0] == results[1] != before
    stats = provider.stats()
    assert stats["refreshes"] == 1 and stats["reused"] == 0
    # The renewed token is the one the server accepts now.
    send(client, chat, "whoami")
    assert said(chat)[-1].startswith("Signed in as person-1")
    assert provider.stats()["refreshes"] == 1


def test_a_token_refused_before_it_runs_out_is_renewed_and_the_call_goes_on(
    client, alice, chat, provider
):
    send(client, chat, "whoami")
    client.get(callback_path(sign_in_at_provider(start_sign_in(client, pending(chat)))))
    first = said(chat)[-1]
    assert first.startswith("Signed in as person-1 (token sha256 ")
    before = Connection.objects.get().values()["access_token"]
    provider.expire_access_tokens()  # the server answers 401 to the token we still trust

    send(client, chat, "whoami")
    assert said(chat)[-1].startswith("Signed in as person-1 (token sha256 ")
    assert said(chat)[-1] != first  # with the renewed token
    connection = Connection.objects.get()
    assert connection.values()["access_token"] != before
    stats = provider.stats()
    assert stats["refreshes"] == 1 and stats["reused"] == 0
    assert not chat.parts.filter(state=Part.State.PENDING).exists()  # nothing to ask the person


def test_a_token_refused_with_a_grant_the_provider_no_longer_accepts_asks_again(
    client, alice, chat, provider
):
    send(client, chat, "whoami")
    client.get(callback_path(sign_in_at_provider(start_sign_in(client, pending(chat)))))
    provider.revoke_all()  # before the token runs out: the server answers 401, renewal fails

    send(client, chat, "whoami")
    assert said(chat)[-1].startswith("Test server needs your notes connection: ")
    assert not Connection.objects.exists()  # the refused grant is gone
    send(client, chat, "whoami")
    card = pending(chat)
    assert card.render_kind == "connection" and card.normalized["existing"] is None


def test_a_grant_revoked_at_the_provider_asks_again(client, alice, chat, provider):
    send(client, chat, "whoami")
    client.get(callback_path(sign_in_at_provider(start_sign_in(client, pending(chat)))))
    provider.revoke_all()
    _expire(Connection.objects.get())

    send(client, chat, "whoami")
    assert not Connection.objects.exists()  # the refused grant is gone
    card = pending(chat)
    assert card.render_kind == "connection" and card.normalized["existing"] is None
    client.get(callback_path(sign_in_at_provider(start_sign_in(client, card))))
    assert said(chat)[-1].startswith("Signed in as person-1")


def test_revoking_a_connection_revokes_its_tokens_at_the_provider(client, alice, chat, provider):
    send(client, chat, "whoami")
    client.get(callback_path(sign_in_at_provider(start_sign_in(client, pending(chat)))))
    connection = Connection.objects.get()
    assert provider.stats()["live_access_tokens"] == 1
    response = client.post(f"/connections/{connection.pk}/revoke", follow=True)
    assert "no agent can use it any more" in response.content.decode()
    assert "did not confirm" not in response.content.decode()
    assert provider.stats()["revoked"] == 1 and provider.stats()["live_access_tokens"] == 0
    assert not Connection.objects.exists()


def test_a_wrong_state_is_refused_and_the_card_still_waits(client, alice, chat, provider, caplog):
    capture_logs(caplog)
    send(client, chat, "whoami")
    card = pending(chat)
    back = sign_in_at_provider(start_sign_in(client, card))
    code = query(back)["code"]
    response = client.get(f"/connections/oauth/callback?code={code}&state=not-the-state")
    assert response.status_code == 400
    assert "not valid any more" in response.content.decode()
    assert not Connection.objects.exists()
    card.refresh_from_db()
    assert card.is_pending
    assert code not in everything_stored() and code not in caplog.text


def test_someone_elses_state_is_refused_and_stays_theirs(client, alice, bob, chat, provider):
    send(client, chat, "whoami")
    back = sign_in_at_provider(start_sign_in(client, pending(chat)))
    other = Client()
    other.force_login(bob)
    assert other.get(callback_path(back)).status_code == 400
    assert not Connection.objects.exists()
    # Alice's own sign-in still finishes.
    assert client.get(callback_path(back)).status_code == 302
    assert Connection.objects.get().owner == alice


def test_a_replayed_code_under_another_state_is_refused_by_the_provider(client, chat, provider):
    send(client, chat, "whoami")
    card = pending(chat)
    first, second = start_sign_in(client, card), start_sign_in(client, card)
    used = sign_in_at_provider(first)
    assert client.get(callback_path(used)).status_code == 302
    # The second sign-in's valid state, with the first one's code (already exchanged).
    state = query(second)["state"]
    response = client.get(f"/connections/oauth/callback?code={query(used)['code']}&state={state}")
    assert response.status_code == 400
    assert "Notes refused the sign-in (invalid_grant). Nothing was connected." in (
        response.content.decode()
    )
    assert Connection.objects.count() == 1


def test_an_error_callback_connects_nothing(settings, client, alice, tmp_path, monkeypatch, caplog):
    capture_logs(caplog)
    server = OAuthTestServer("deny")
    try:
        settings.CONNECTIONS_KEYS = [new_key()]
        settings.CONNECTIONS_ALLOW_PRIVATE = True
        settings.CONNECTION_SERVICES_FILE = str(services_file(tmp_path, server))
        chat = chat_with(
            settings,
            client,
            alice,
            http_servers_file(tmp_path, server.mcp_url, extra='connection = "notes"\n'),
        )
        send(client, chat, "whoami")
        card = pending(chat)
        back = sign_in_at_provider(start_sign_in(client, card))
        assert query(back)["error"] == "access_denied"
        response = client.get(callback_path(back))
        assert response.status_code == 400
        text = response.content.decode()
        assert "Notes did not connect (access_denied: The person did not allow it.)" in text
        assert not Connection.objects.exists()
        card.refresh_from_db()
        assert card.is_pending  # Decline, Cancel or another try are still there
    finally:
        server.stop()


def test_a_provider_on_a_private_address_is_refused_unless_allowed(
    client, chat, provider, settings
):
    settings.CONNECTIONS_ALLOW_PRIVATE = False
    send(client, chat, "whoami")
    card = pending(chat)
    response = client.post(
        f"/parts/{card.pk}/connect", {"label": "", "connect": "1"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 422
    assert "127.0.0.1 is a private or local address" in response.content.decode()
    assert provider.stats()["registered"] == 0
    assert not OAuthAuthorization.objects.exists() and not Connection.objects.exists()


class Redirecting(LocalServer):
    """A local server that answers every GET with a redirect to `to` (else 404), counting them."""

    def __init__(self, to: str = ""):
        self.hits: list[str] = []
        hits, location = self.hits, to

        class Handler(QuietHandler):
            def do_GET(self):
                hits.append(self.path)
                self.send_response(302 if location else 404)
                if location:
                    self.send_header("Location", location + self.path)
                self.end_headers()

        super().__init__(Handler)


def test_a_provider_that_redirects_to_another_host_is_refused(client, alice, settings, tmp_path):
    elsewhere = Redirecting()
    provider = Redirecting(to=elsewhere.url)
    try:
        settings.CONNECTIONS_KEYS = [new_key()]
        settings.CONNECTIONS_ALLOW_PRIVATE = True
        path = tmp_path / "services.toml"
        path.write_text(
            '[services.moved]\ntitle = "Moved"\n'
            f'oauth = {{ issuer = "{provider.url}", client_id = "ours" }}\n'
        )
        settings.CONNECTION_SERVICES_FILE = str(path)
        client.force_login(alice)
        response = client.post("/connections/new/moved", {"label": "Mine"}, follow=True)
        host = provider.url.removeprefix("http://")
        assert f"{host} answered with a redirect, which is not followed." in (
            response.content.decode()
        )
        assert provider.hits and elsewhere.hits == []  # the other host was never asked
        assert not OAuthAuthorization.objects.exists() and not Connection.objects.exists()
    finally:
        provider.stop()
        elsewhere.stop()

"""Signing in with an OpenID provider (node's oidc-provider, a real one): who the person is,
their groups, reviewers, and every refusal, each with a page saying what happened and
nothing made."""

import html
from urllib.parse import parse_qs, urlsplit

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import Group, User
from django.test import Client

from playground.accounts.models import ProviderGroup, SignOn
from playground.api.tokens import create_token
from tests.support.admin_support import reviewer_group
from tests.support.live_server import free_port
from tests.support.oidc_support import OIDCProvider, sign_in_at_provider

SITE = "http://testserver"


@pytest.fixture(scope="module")
def provider():
    started = OIDCProvider(SITE)
    yield started
    started.stop()


@pytest.fixture
def sso(provider, settings, monkeypatch):
    """The playground configured for the provider, as the docs' example (docs/sign-on.md) does."""
    for name, value in provider.settings().items():
        monkeypatch.setenv(name, value)
    settings.OIDC_ISSUER = provider.issuer
    settings.OIDC_CLIENT_ID = "playground"
    settings.OIDC_CLIENT_SECRET_ENV = "TEST_OIDC_CLIENT_SECRET"
    settings.OIDC_PROVIDER_NAME = "Example SSO"
    settings.OIDC_SCOPES = ["openid", "email", "profile"]
    reviewer_group()
    yield provider
    provider.tamper("")


def callback(client: Client, login: str, *, next_url: str = "", cancel: bool = False) -> str:
    """Start signing in here, sign in at the provider; return the callback path it sent."""
    started = client.get("/accounts/oidc/start/", {"next": next_url} if next_url else {})
    assert started.status_code == 302, started.content
    back = sign_in_at_provider(started["Location"], login, cancel=cancel)
    assert back.startswith(f"{SITE}/accounts/oidc/callback/"), back
    return back.removeprefix(SITE)


def sign_in(client: Client, login: str, **options):
    return client.get(callback(client, login, **options))


def signed_in_as(client: Client) -> str:
    return User.objects.get(pk=client.session["_auth_user_id"]).username


def query(url: str) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(urlsplit(url).query).items()}


def text(response) -> str:
    return html.unescape(" ".join(response.content.decode().split()))


@pytest.mark.django_db
def test_the_login_page_offers_the_provider(sso, client):
    page = text(client.get("/accounts/login/?next=/inbox/"))

    assert 'href="/accounts/oidc/start/?next=/inbox/">Sign in with Example SSO</a>' in page
    assert 'name="password"' in page  # local login stays unless turned off


@pytest.mark.django_db
def test_a_person_signs_in_and_lands_where_they_were_going_with_their_groups(sso, client):
    response = sign_in(client, "ada", next_url="/inbox/")

    assert response.status_code == 302 and response["Location"] == "/inbox/"
    ada = User.objects.get(username="ada")
    assert signed_in_as(client) == "ada"
    assert (ada.first_name, ada.email) == ("Ada Lovelace", "ada@example.com")
    assert SignOn.objects.get(user=ada).subject == "7f3a-ada"
    assert set(ada.groups.values_list("name", flat=True)) == {
        "release-managers",
        "playground-users",
    }
    assert not ada.is_staff
    assert client.get("/inbox/").status_code == 200


@pytest.mark.django_db
def test_a_person_is_matched_by_subject_never_by_email_or_name(sso, client):
    local = User.objects.create_user("ada", email="ada@example.com", password="local-pw-1")

    sign_in(client, "ada")

    signed = User.objects.get(signon__subject="7f3a-ada")
    assert signed != local and signed.username == "ada-2"
    local.refresh_from_db()
    assert local.check_password("local-pw-1") and not local.groups.exists()


@pytest.mark.django_db
def test_each_sign_in_refreshes_name_email_and_the_providers_groups_only(sso, client):
    sign_in(client, "ada")
    ada = User.objects.get(username="ada")
    User.objects.filter(pk=ada.pk).update(first_name="Changed", email="old@example.com")
    gone = Group.objects.create(name="old-team")
    ProviderGroup.objects.create(group=gone)  # came from the provider at an earlier sign-in
    made_here = Group.objects.create(name="ops")
    ada.groups.add(gone, made_here)
    client.logout()

    sign_in(client, "ada")

    ada.refresh_from_db()
    assert (ada.first_name, ada.email) == ("Ada Lovelace", "ada@example.com")
    assert set(ada.groups.values_list("name", flat=True)) == {
        "release-managers",
        "playground-users",
        "ops",
    }
    assert SignOn.objects.count() == 1


@pytest.mark.django_db
def test_the_reviewer_group_reaches_the_admin_and_losing_it_takes_that_back(sso, client, settings):
    settings.SIGN_ON_REVIEWER_GROUP = "playground-admins"
    sign_in(client, "grace")

    grace = User.objects.get(username="grace")
    assert grace.is_staff and grace.groups.filter(name="reviewer").exists()
    assert client.get("/admin/elicitation/part/").status_code == 200
    ada = Client()
    sign_in(ada, "ada")
    assert ada.get("/admin/").status_code == 302  # to the admin's login: not staff

    settings.SIGN_ON_REVIEWER_GROUP = "another-group"
    client.logout()
    sign_in(client, "grace")

    grace.refresh_from_db()
    assert not grace.is_staff and not grace.groups.filter(name="reviewer").exists()


def assert_refused_and_nothing_made(response, *words: str) -> None:
    page = text(response)
    assert response.status_code in (403, 503), response.status_code
    assert 'role="alert"' in page and "Back to the login page" in page
    for word in words:
        assert word in page, page
    assert "_auth_user_id" not in response.wsgi_request.session
    assert not SignOn.objects.exists()
    assert not User.objects.exists()


@pytest.mark.django_db
def test_a_callback_without_state_is_refused(sso, client):
    response = client.get("/accounts/oidc/callback/?code=anything")

    assert_refused_and_nothing_made(response, "This sign-in link is not valid any more")


@pytest.mark.django_db
def test_a_callback_with_a_wrong_state_is_refused(sso, client):
    path = callback(client, "ada")

    response = client.get(path.replace("state=", "state=x"))

    assert_refused_and_nothing_made(response, "This sign-in link is not valid any more")


@pytest.mark.django_db
def test_a_callback_used_twice_is_refused(sso, client):
    path = callback(client, "ada")
    assert client.get(path).status_code == 302
    client.logout()
    User.objects.all().delete()

    assert_refused_and_nothing_made(client.get(path), "not valid any more")


@pytest.mark.django_db
def test_a_replayed_code_is_refused_by_the_provider(sso, client):
    used = callback(client, "ada")
    assert client.get(used).status_code == 302
    client.logout()
    User.objects.all().delete()
    code = query(used)["code"]
    state = query(client.get("/accounts/oidc/start/")["Location"])["state"]  # a fresh one

    response = client.get(f"/accounts/oidc/callback/?code={code}&state={state}")

    assert_refused_and_nothing_made(response, "refused the sign-in code", "already used")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("wrong", "said"),
    [
        ("nonce", "belongs to another sign-in (its nonce does not match)"),
        ("signature", "is not signed with Example SSO's keys"),
        ("issuer", "comes from another issuer"),
        ("audience", "was issued for another application"),
        ("expired", "has expired"),
    ],
)
def test_an_id_token_that_fails_a_check_is_refused(sso, client, wrong, said):
    sso.tamper(wrong)

    response = sign_in(client, "ada")

    assert_refused_and_nothing_made(response, "did not pass its checks", said)


@pytest.mark.django_db
@pytest.mark.parametrize("login", ["eve", "frank"])
def test_an_unverified_email_is_refused(sso, client, login):
    response = sign_in(client, login)

    assert_refused_and_nothing_made(
        response, "Your email address is not verified", f"{login}@example.com", "sign in again"
    )


@pytest.mark.django_db
def test_a_cancelled_sign_in_at_the_provider_is_refused(sso, client):
    response = sign_in(client, "ada", cancel=True)

    assert_refused_and_nothing_made(response, "did not sign you in")


@pytest.mark.django_db
def test_someone_outside_the_allowed_groups_is_refused_saying_whom_to_ask(sso, client, settings):
    settings.SIGN_ON_ALLOWED_GROUPS = ["playground-users"]
    settings.SIGN_ON_CONTACT = "the IT desk (it@example.com)"

    response = sign_in(client, "mallory")

    assert_refused_and_nothing_made(
        response,
        "This playground is not open to you",
        "for members of playground-users at Example SSO",
        "Ask the IT desk (it@example.com) to add you",
    )


@pytest.mark.django_db(transaction=True)  # the API reads tokens on another thread
def test_someone_removed_from_the_allowed_groups_loses_their_tokens_until_let_in_again(
    sso, client, settings
):
    sign_in(client, "ada")
    _, key = create_token(User.objects.get(username="ada"), "ci")
    api = Client(headers={"Authorization": f"Bearer {key}"})
    assert api.get("/api/v1/requests/1").status_code == 404
    client.logout()

    settings.SIGN_ON_ALLOWED_GROUPS = ["auditors"]
    refused = sign_in(client, "ada")
    assert refused.status_code == 403 and "_auth_user_id" not in client.session
    assert api.get("/api/v1/requests/1").status_code == 401

    settings.SIGN_ON_ALLOWED_GROUPS = ["playground-users"]
    sign_in(client, "ada")
    assert signed_in_as(client) == "ada"
    assert api.get("/api/v1/requests/1").status_code == 404


@pytest.mark.django_db
def test_someone_deactivated_here_stays_out(sso, client):
    sign_in(client, "ada")
    User.objects.filter(username="ada").update(is_active=False)
    client.logout()

    response = sign_in(client, "ada")

    assert response.status_code == 403
    assert "An administrator of this playground deactivated your account" in text(response)
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_a_provider_that_is_down_is_said_so(sso, client, settings):
    settings.OIDC_ISSUER = f"http://127.0.0.1:{free_port()}"

    response = client.get("/accounts/oidc/start/")

    assert response.status_code == 503
    assert_refused_and_nothing_made(response, "could not be reached", "Try again in a few")


@pytest.mark.django_db
def test_a_provider_that_goes_down_before_the_callback_is_said_so(sso, client, settings):
    other = OIDCProvider(SITE)
    try:
        settings.OIDC_ISSUER = other.issuer
        path = callback(client, "ada")
    finally:
        other.stop()

    response = client.get(path)

    assert_refused_and_nothing_made(response, "could not be reached")


@pytest.mark.django_db
def test_refused_sign_ins_at_the_provider_do_not_count_toward_a_local_lockout(
    sso, client, settings
):
    ada = User.objects.create_user("ada", password="local-pw-1")
    settings.SIGN_ON_ALLOWED_GROUPS = ["auditors"]
    for _ in range(3):
        assert sign_in(client, "ada", cancel=True).status_code == 403
        assert sign_in(client, "ada").status_code == 403
        assert client.get("/accounts/oidc/callback/?code=x&state=y").status_code == 403

    assert not AccessAttempt.objects.exists()
    local = client.post("/accounts/login/", {"username": "ada", "password": "local-pw-1"})
    assert local.status_code == 302 and signed_in_as(client) == ada.username


@pytest.mark.django_db
def test_logging_out_ends_the_session_here_and_goes_to_the_providers_end_session(sso, client):
    sign_in(client, "ada")

    response = client.post("/accounts/logout/")

    assert "_auth_user_id" not in client.session
    assert response.status_code == 302
    assert response["Location"].startswith(f"{sso.issuer}/session/end?")
    assert "client_id=playground" in response["Location"]
    assert (
        "post_logout_redirect_uri=http%3A%2F%2Ftestserver%2Faccounts%2Flogin%2F"
        in (response["Location"])
    )


@pytest.mark.django_db
def test_a_local_login_logs_out_without_the_provider(sso, client):
    User.objects.create_user("bob", password="bob-password-1")
    client.post("/accounts/login/", {"username": "bob", "password": "bob-password-1"})

    response = client.post("/accounts/logout/")

    assert response.status_code == 302 and response["Location"] == "/accounts/login/"


@pytest.mark.django_db
def test_with_local_login_off_no_password_is_taken(sso, client, settings):
    settings.LOCAL_LOGIN = False
    settings.AUTHENTICATION_BACKENDS = [
        backend for backend in settings.AUTHENTICATION_BACKENDS if "ModelBackend" not in backend
    ]
    User.objects.create_user("bob", password="bob-password-1")

    page = text(client.get("/accounts/login/"))
    posted = client.post("/accounts/login/", {"username": "bob", "password": "bob-password-1"})
    admin = client.post("/admin/login/", {"username": "bob", "password": "bob-password-1"})

    assert "Sign in with Example SSO" in page and 'name="password"' not in page
    assert posted.status_code == 405
    assert admin.status_code == 302 and "_auth_user_id" not in client.session
    assert client.get("/admin/")["Location"] == "/admin/login/?next=/admin/"
    assert client.get("/admin/login/?next=/admin/")["Location"] == "/accounts/login/?next=/admin/"

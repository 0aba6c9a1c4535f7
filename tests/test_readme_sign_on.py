"""The sign-on example of docs/sign-on.md works as written, on a real server: its settings (with the
issuer and secret of a local node `oidc-provider` in place of Keycloak's) give a login page
with only "Sign in with Acme SSO", reviewers who reach the admin, and a clear refusal for
someone outside the allowed groups."""

import httpx
import pytest

from tests.support.live_server import LiveServer, free_port
from tests.support.oidc_support import (
    CLIENT_SECRET,
    OIDCProvider,
    readme_example,
    sign_in_at_provider,
)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    settings = readme_example(0)
    port = free_port()
    settings["OIDC_ISSUER"] = f"http://127.0.0.1:{port}"  # instead of Keycloak's
    settings[settings["OIDC_CLIENT_SECRET_ENV"]] = CLIENT_SECRET
    live = LiveServer(tmp_path_factory.mktemp("readme-sign-on"), settings)
    live.prepare({})
    provider = OIDCProvider(live.url, port=port)
    try:
        live.start()
        yield live
    finally:
        live.stop()
        provider.stop()


def sign_in(server: LiveServer, login: str) -> tuple[httpx.Client, httpx.Response]:
    browser = httpx.Client(base_url=server.url, timeout=30)
    started = browser.get("/accounts/oidc/start/")
    assert started.status_code == 302, started.text
    return browser, browser.get(sign_in_at_provider(started.headers["location"], login))


def test_the_login_page_offers_only_the_provider(server):
    page = httpx.get(server.url + "/accounts/login/", timeout=30).text

    assert "Sign in with Acme SSO" in page
    assert 'name="password"' not in page


def test_a_reviewer_signs_in_and_reaches_the_admin(server):
    browser, back = sign_in(server, "grace")

    assert back.status_code == 302 and back.headers["location"] == "/"
    assert browser.get("/admin/elicitation/part/").status_code == 200


def test_someone_outside_the_allowed_groups_is_told_whom_to_ask(server):
    _, refused = sign_in(server, "mallory")

    assert refused.status_code == 403
    assert "Ask the IT desk (it@example.com) to add you" in refused.text
    assert server.query("SELECT username FROM auth_user WHERE username = 'mallory'") == []

"""Sign-on by a trusted proxy's header, on a real server (`manage.py serve --proxy-headers`)
with the settings of docs/sign-on.md: believed from a listed socket peer, ignored (and logged once)
from any other, whatever X-Forwarded-For claims."""

import httpx
import pytest

from tests.support.live_server import LiveServer
from tests.support.oidc_support import readme_example

PROXY = "127.0.0.2"  # the proxy's address: this test connects from it (all of 127/8 is local)
HEADERS = {
    "X-Forwarded-User": "ada",
    "X-Forwarded-Email": "ada@example.com",
    "X-Forwarded-Groups": "release-managers,playground-users",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    env = readme_example(1) | {"PROXY_TRUSTED_ADDRESSES": PROXY}  # the README's, here
    live = LiveServer(tmp_path_factory.mktemp("proxy"), env, serve_args=("--proxy-headers",))
    live.prepare({})
    live.start()
    yield live
    live.stop()


def from_address(address: str) -> httpx.Client:
    return httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=30)


def test_the_header_from_the_listed_proxy_signs_the_person_in(server):
    with from_address(PROXY) as proxy:
        page = proxy.get(server.url + "/", headers=HEADERS)
        again = proxy.get(server.url + "/inbox/", headers=HEADERS)

    assert page.status_code == 200 and '<span class="who">ada</span>' in page.text
    assert again.status_code == 200
    assert server.query(
        "SELECT u.email, s.issuer, s.subject FROM auth_user u"
        " JOIN accounts_signon s ON s.user_id = u.id WHERE u.username = 'ada'"
    ) == [("ada@example.com", "trusted-proxy", "ada")]
    groups = server.query(
        "SELECT g.name FROM auth_group g JOIN auth_user_groups m ON m.group_id = g.id"
        " JOIN auth_user u ON u.id = m.user_id WHERE u.username = 'ada' ORDER BY g.name"
    )
    assert groups == [("playground-users",), ("release-managers",)]


def test_the_header_from_anywhere_else_is_ignored_and_logged_once(server):
    spoofed = {**HEADERS, "X-Forwarded-User": "mallory", "X-Forwarded-For": PROXY}
    with from_address("127.0.0.1") as elsewhere:
        first = elsewhere.get(server.url + "/", headers=spoofed)
        second = elsewhere.get(server.url + "/", headers=spoofed)

    for response in (first, second):
        assert response.status_code == 302
        assert response.headers["location"].startswith("/accounts/login/")
    assert server.query("SELECT username FROM auth_user WHERE username = 'mallory'") == []
    ignored = "Ignored the X-Forwarded-User header from 127.0.0.1"
    assert server.log().count(ignored) == 1


def test_someone_deactivated_here_is_told_so_at_their_next_request(server):
    with from_address(PROXY) as proxy:
        assert proxy.get(server.url + "/", headers=HEADERS).status_code == 200
        server.query("UPDATE auth_user SET is_active = 0 WHERE username = 'ada'")
        refused = proxy.get(server.url + "/", headers=HEADERS)
        server.query("UPDATE auth_user SET is_active = 1 WHERE username = 'ada'")

    assert refused.status_code == 403
    assert "An administrator of this playground deactivated your account" in refused.text

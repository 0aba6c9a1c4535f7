"""Signing in from a connection card in Chromium: a remote MCP server that requires
authorization (built with the SDK, with its own authorization server on 127.0.0.1) asks for a
connection before its tools are listed; the card's button goes to the provider, which sends the
person back, and the chat goes on with the server's tools and a call. No token is on the page or
in the log, and nothing needed an exception to the page's policy. Axe clean; screenshots in
test-artifacts/."""

import pytest

from tests.browser.axe import serious_findings
from tests.browser.chat import open_chat, screenshot, send
from tests.browser.conftest import served_copy
from tests.support.connections_support import new_key
from tests.support.mcp_support import http_servers_file
from tests.support.oauth_support import OAuthTestServer, services_file

SYNC_AGENTS = "from playground.mcp_bridge.catalog import sync_agents; sync_agents()"


@pytest.fixture(scope="module")
def provider():
    server = OAuthTestServer()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def live_server(tmp_path_factory, prepared_database, provider):
    workdir = tmp_path_factory.mktemp("oauth-browser")
    servers = http_servers_file(workdir, provider.mcp_url, extra='connection = "notes"\n')
    env = {
        "CONNECTIONS_KEY": new_key(),
        "CONNECTIONS_ALLOW_PRIVATE": "1",  # the provider is on 127.0.0.1
        "CONNECTION_SERVICES_FILE": str(services_file(workdir, provider)),
        "MCP_SERVERS_FILE": str(servers),
    }
    with served_copy(
        prepared_database,
        workdir,
        env,
        before_start=lambda server: server.manage("shell", "-c", SYNC_AGENTS),
    ) as server:  # the server's agent on the home page
        yield server


def test_signing_in_from_the_card_lists_the_tools_and_calls_one(page, live_server, provider):
    open_chat(page, live_server, "Test server")
    card = page.locator("article.part--connection.part--pending")
    card.wait_for()
    sign_in = card.get_by_role("button", name="Sign in to Notes")
    assert card.locator("input[name^='field.']").count() == 0  # nothing to type
    assert serious_findings(page, "sign-in card") == []
    screenshot(card, "oauth-sign-in-card")
    page.emulate_media(color_scheme="dark")
    page.set_viewport_size({"width": 375, "height": 800})
    screenshot(card, "oauth-sign-in-card-dark-375")
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    page.emulate_media(color_scheme="light")
    page.set_viewport_size({"width": 1280, "height": 720})

    sign_in.click()  # to the provider, which sends the person straight back
    page.locator("article.part--connection.part--submitted").wait_for()
    page.locator(".display-card", has_text="whoami").wait_for()
    assert "/connections/oauth/callback" not in page.url
    assert provider.stats()["registered"] == 1  # registered dynamically, once

    send(page, "whoami")
    page.locator(".bubble.agent", has_text="Signed in as person-1 (token sha256 ").wait_for()
    assert serious_findings(page, "after signing in") == []
    screenshot(page, "oauth-signed-in")
    page.get_by_role("link", name="Connections").click()
    page.wait_for_url("**/connections/")
    assert "Notes" in page.locator("main").inner_text()
    for text in (page.content(), live_server.log()):
        assert "access_token" not in text and "refresh_token" not in text

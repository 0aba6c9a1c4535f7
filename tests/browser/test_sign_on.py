"""Signing on in a real Chromium with a real OpenID provider (node's oidc-provider): the login
page, a person who signs in there and answers a question routed to their provider group,
and logging out of both the playground and the provider."""

import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.axe import look_at
from tests.browser.chat import socket_open
from tests.browser.conftest import log_in, refused_by_policy, served_copy
from tests.support.live_server import BASE_DIR, free_port
from tests.support.oidc_support import OIDCProvider

SETUP = """
from django.contrib.auth.models import User
from playground.runs.models import Agent, Conversation
routing = {"routing": {"questions": ["group:release-managers"]}}
agent = Agent.objects.create(
    slug="release-bot", name="Release bot", kind="test-release-bot", config=routing
)
conversation = Conversation.objects.create(owner=User.objects.get(username="alice"), agent=agent)
print(f"conversation={conversation.pk}")
"""
SHOTS = Path("/tmp/shots")


@pytest.fixture(scope="module")
def provider_port() -> int:
    return free_port()


@pytest.fixture(scope="module")
def live_server(tmp_path_factory, prepared_database, provider_port):
    started: list[OIDCProvider] = []

    def start_provider(server) -> None:
        started.append(OIDCProvider(server.url, port=provider_port))

    settings = OIDCProvider.settings_for(f"http://127.0.0.1:{provider_port}") | {
        "AGENT_MODULES": "tests.support.runtime_agents",
        "ROUTING_ALLOWED_GROUPS": "release-managers",
    }
    try:
        with served_copy(
            prepared_database, tmp_path_factory.mktemp("sign-on"), settings, start_provider
        ) as server:
            yield server
    finally:
        for provider in started:
            provider.stop()


def sign_in_with_provider(page: Page, server, login: str) -> None:
    page.goto(server.url + "/accounts/login/")
    page.get_by_role("link", name="Sign in with Example SSO").click()
    page.get_by_label("Login name").fill(login)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(server.url + "/")


def test_the_login_page_offers_the_provider_in_every_look(browser, live_server):
    page = browser.new_page()
    page.goto(live_server.url + "/accounts/login/")
    expect(page.get_by_role("link", name="Sign in with Example SSO")).to_be_visible()
    look_at(page, "sign-on-login")
    page.goto(live_server.url + "/accounts/oidc/callback/?code=stale")  # no state: refused
    expect(page.get_by_role("alert")).to_contain_text("This sign-in link is not valid any more")
    look_at(page, "sign-on-refused")
    SHOTS.mkdir(exist_ok=True)
    for shot in (BASE_DIR / "test-artifacts").glob("sign-on-*.png"):
        shutil.copy(shot, SHOTS / shot.name)
    page.close()


def test_a_person_signs_in_there_and_answers_a_question_routed_to_their_group(browser, live_server):
    ada = browser.new_context().new_page()
    refused = refused_by_policy(ada)
    sign_in_with_provider(ada, live_server, "ada")
    expect(ada.locator(".who")).to_have_text("ada")

    # Alice (a local login) asks the release managers, a group that came from the provider.
    conversation = int(
        re.search(r"conversation=(\d+)", live_server.manage("shell", "-c", SETUP))[1]
    )
    alice = browser.new_context().new_page()
    log_in(alice, live_server, "alice")
    alice.goto(f"{live_server.url}/c/{conversation}/")
    socket_open(alice)
    alice.fill("#composer-text", "Release the mobile app")
    alice.keyboard.press("Enter")
    expect(alice.locator("article.part").last).to_contain_text("Waiting for Release managers")

    ada.goto(live_server.url + "/inbox/")
    question = ada.locator("#inbox-list > li").first
    expect(question).to_contain_text("Which version should I release?")
    question.locator("input[name='answer.version']").fill("2.5.0")
    question.locator("button[value=accept]").click()
    expect(question.locator(".answered-by")).to_contain_text("Answered by ada")
    alice.goto(f"{live_server.url}/c/{conversation}/")
    expect(alice.locator("#transcript")).to_contain_text("Releasing 2.5.0.")
    assert not refused, refused


def test_logging_out_ends_both_sessions_and_every_tab_follows(browser, live_server):
    context = browser.new_context()
    page = context.new_page()
    refused = refused_by_policy(page)
    sign_in_with_provider(page, live_server, "ada")
    other_tab = context.new_page()
    other_tab.goto(live_server.url + "/")

    page.get_by_role("button", name="Log out").click()
    page.get_by_role("button", name="Yes, sign me out").click()  # the provider asks
    page.wait_for_url(lambda url: url.startswith(live_server.url + "/accounts/login/"))
    expect(other_tab.locator(".logged-out")).to_contain_text("You logged out in another tab")

    # Signed out at the provider too: signing in asks who you are again.
    page.get_by_role("link", name="Sign in with Example SSO").click()
    expect(page.get_by_label("Login name")).to_be_visible()
    page.goto(live_server.url + "/")
    page.wait_for_url("**/accounts/login/?next=/")
    assert not refused, refused
    context.close()

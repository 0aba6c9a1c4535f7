"""The tab that accepts a new agent answered by a model shows its header as the agent's page
does after a reload: with the "Edit <name>" link, which opens its edit page and comes back
(a real Chromium; 375 px and 1366 px, light and dark, axe clean)."""

import json

import pytest
from playwright.sync_api import Page, expect

from tests.browser.axe import look_at
from tests.browser.chat import socket_open
from tests.browser.conftest import served_copy
from tests.support.fake_openai import MODEL, FakeOpenAI, text, tool_calls
from tests.test_onboarding_connection import DESCRIPTION, PROPOSAL

NAME = PROPOSAL["name"]


@pytest.fixture(scope="module")
def model():
    server = FakeOpenAI(tool_calls(("propose_configuration", PROPOSAL)), text("Done."))
    yield server
    server.close()


@pytest.fixture(scope="module")
def live_server(tmp_path_factory, prepared_database, model):
    workdir = tmp_path_factory.mktemp("wizard-edit-link")
    providers = [{"name": "fake", "base_url": model.base_url, "models": [MODEL]}]
    with served_copy(prepared_database, workdir, {"LLM_PROVIDERS": json.dumps(providers)}) as s:
        yield s


def test_accept_shows_the_edit_link_without_a_reload_and_it_works(page: Page, live_server):
    page.set_default_timeout(30_000)
    page.get_by_role("button", name="New agent").click()
    page.wait_for_url("**/c/*/")
    socket_open(page)
    page.get_by_label("Message to Agent setup").fill(DESCRIPTION)
    page.keyboard.press("Enter")
    page.locator(".part--pending").get_by_role("button", name="Accept").click()
    page.evaluate("window.sameDocument = true")
    who = page.locator(".part--pending", has_text="Who should answer this agent's messages?")
    who.get_by_role("button", name="Submit").click()
    page.wait_for_url("**/agents/*/")
    agent_page = page.url

    edit = page.locator("#chat-header").get_by_role("link", name=f"Edit {NAME}")
    expect(edit).to_be_visible()
    assert page.evaluate("window.sameDocument") is True  # live, not a reload
    page.evaluate("window.scrollTo(0, 0)")  # the header, with its link
    look_at(page, "accepted-agent-edit-link")

    edit.click()
    expect(page.get_by_role("heading", name=f"Edit {NAME}")).to_be_visible()
    page.get_by_role("button", name="Save changes").click()
    page.wait_for_url(agent_page)  # back where the link was
    expect(page.get_by_role("link", name=f"Edit {NAME}")).to_be_visible()

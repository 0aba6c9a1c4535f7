"""A connection card where the vault cannot keep anything: without CONNECTIONS_KEY the card says
so before anyone types; with a key the vault cannot use, Connect is refused in the vault's own
words beside the form, not with a generic error. Axe clean, at 375 and 1366 px, light and dark."""

import pytest
from playwright.sync_api import expect

from tests.browser.axe import look_at
from tests.browser.chat import send, socket_open
from tests.browser.conftest import log_in, served_copy
from tests.browser.test_connection_card import NEW_CONVERSATION
from tests.support.connections_support import GOOD_TOKEN
from tests.support.connections_support import services_file as write_services_file


def vault_server(tmp_path_factory, prepared_database, key: str | None):
    workdir = tmp_path_factory.mktemp("vault")
    env = {
        "AGENT_MODULES": "tests.support.runtime_agents",
        "CONNECTION_SERVICES_FILE": str(write_services_file(workdir)),
    }
    if key is not None:
        env["CONNECTIONS_KEY"] = key
    return served_copy(prepared_database, workdir, env)


@pytest.fixture(scope="module")
def without_key(tmp_path_factory, prepared_database):
    with vault_server(tmp_path_factory, prepared_database, None) as server:
        yield server


@pytest.fixture(scope="module")
def with_a_broken_key(tmp_path_factory, prepared_database):
    with vault_server(tmp_path_factory, prepared_database, "not-a-key") as server:
        yield server


def open_card(browser, server):
    page = browser.new_context(viewport={"width": 1366, "height": 900}).new_page()
    page.set_default_timeout(30_000)
    log_in(page, server)
    conversation = server.manage("shell", "-c", NEW_CONVERSATION).split()[-1]
    page.goto(f"{server.url}/c/{conversation}/")
    socket_open(page)
    send(page, "list my repositories")
    card = page.locator("article.part--connection.part--pending")
    card.wait_for()
    return page, card


def test_without_a_key_the_card_says_so_before_anyone_types(browser, without_key):
    page, card = open_card(browser, without_key)
    expect(card).to_contain_text(
        "Nothing can be connected here: this playground has no CONNECTIONS_KEY"
    )
    expect(card.get_by_label("Access token")).to_be_disabled()
    expect(card.get_by_role("button", name="Connect Demo")).to_be_disabled()
    look_at(page, "connection-card-without-key")
    card.get_by_role("button", name="Cancel").click()  # what the person can still do
    expect(page.locator("article.part--connection")).to_have_attribute("data-state", "cancelled")
    page.context.close()


def test_a_refusal_is_shown_in_its_own_words(browser, with_a_broken_key):
    page, card = open_card(browser, with_a_broken_key)
    card.get_by_label("Access token").fill(GOOD_TOKEN)
    card.get_by_role("button", name="Connect Demo").click()
    alert = card.get_by_role("alert")
    expect(alert).to_contain_text("Key 1 in CONNECTIONS_KEY is not 32 bytes")
    expect(alert).not_to_contain_text("could not handle that")
    expect(card.get_by_label("Access token")).to_have_value(GOOD_TOKEN)  # nothing swapped
    look_at(page, "connection-card-refused-by-the-vault")
    page.context.close()

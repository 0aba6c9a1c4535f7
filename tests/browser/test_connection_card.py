"""A connection card in Chromium: a refused credential is said plainly and kept out of the page,
a good one connects and the agent goes on; the Connections page lists, renames and revokes.
Both are axe clean, in light and dark, at 375 and 1366 px (screenshots in test-artifacts/)."""

import json

import pytest
from playwright.sync_api import expect

from tests.browser.axe import serious_findings
from tests.browser.chat import screenshot, send, socket_open
from tests.browser.conftest import USERS, log_in, served_copy
from tests.support.connections_support import GOOD_TOKEN, WRONG_TOKEN, DemoService, digest, new_key
from tests.support.connections_support import services_file as write_services_file

NEW_CONVERSATION = """
from django.contrib.auth.models import User
from playground.runs.models import Agent, Conversation
agent, _ = Agent.objects.get_or_create(
    slug="test-connection", defaults={"name": "Repo helper", "kind": "test-connection"}
)
print(Conversation.objects.create(owner=User.objects.get(username="alice"), agent=agent).pk)
"""
LOOKS = [("light", 375), ("dark", 375), ("light", 1366), ("dark", 1366)]


@pytest.fixture(scope="module")
def demo():
    service = DemoService()
    yield service
    service.stop()


@pytest.fixture(scope="module")
def live_server(tmp_path_factory, prepared_database, demo):
    workdir = tmp_path_factory.mktemp("connections")
    env = {
        "AGENT_MODULES": "tests.support.runtime_agents",
        "CONNECTIONS_KEY": new_key(),
        "CONNECTION_SERVICES_FILE": str(write_services_file(workdir, demo.url)),
    }
    with served_copy(prepared_database, workdir, env) as server:
        yield server


def log_in_as_alice(page, server) -> None:
    page.goto(server.url + "/accounts/login/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", USERS["alice"])
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)


def test_the_card_connects_and_the_page_manages_it(browser, live_server):
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30_000)
    log_in_as_alice(page, live_server)
    conversation = live_server.manage("shell", "-c", NEW_CONVERSATION).split()[-1]
    page.goto(f"{live_server.url}/c/{conversation}/")
    socket_open(page)
    send(page, "list my repositories")
    card = page.locator("article.part--connection.part--pending")
    card.wait_for()
    assert "Repo helper asks to use your Demo connection" in card.inner_text()
    assert serious_findings(page, "connection card") == []
    screenshot(card, "connection-card")

    card.get_by_label("Access token").fill(WRONG_TOKEN)
    card.get_by_label("Region").fill("us")
    card.get_by_role("button", name="Connect Demo").click()
    refused = page.locator("article.part--connection .form-error")
    refused.wait_for()
    assert "Demo refused this credential (HTTP 401)" in refused.inner_text()
    card = page.locator("article.part--connection.part--pending")
    assert card.get_by_label("Region").input_value() == "us"  # kept
    assert card.get_by_label("Access token").input_value() == ""  # a secret is never re-shown
    assert WRONG_TOKEN not in page.content()
    assert serious_findings(page, "refused connection card") == []
    screenshot(card, "connection-card-refused")

    card.get_by_label("Access token").fill(GOOD_TOKEN)
    card.get_by_label("Name for this connection").fill("Work")
    card.get_by_role("button", name="Connect Demo").click()
    page.locator(".bubble.agent", has_text=f"token sha256 {digest(GOOD_TOKEN)}").wait_for()
    chip = page.locator("article.part--connection.part--submitted")
    assert "Connected: Demo “Work”" in chip.inner_text()
    assert GOOD_TOKEN not in page.content()
    screenshot(chip, "connection-chip")

    page.get_by_role("link", name="Connections").click()
    page.wait_for_url("**/connections/")
    assert page.get_by_label("Name", exact=True).input_value() == "Work"
    assert serious_findings(page, "Connections page") == []
    for scheme, width in LOOKS:
        page.emulate_media(color_scheme=scheme)
        page.set_viewport_size({"width": width, "height": 900})
        screenshot(page, f"connections-page-{scheme}-{width}")
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    page.set_viewport_size({"width": 1366, "height": 900})

    page.get_by_label("Name", exact=True).fill("Work laptop")
    page.get_by_role("button", name="Rename “Work”").click()
    page.get_by_role("status").filter(has_text="Renamed “Work” to “Work laptop”.").wait_for()
    page.get_by_role("button", name="Test “Work laptop”").click()
    page.get_by_role("status").filter(has_text="“Work laptop” works.").wait_for()
    page.get_by_role("button", name="Revoke “Work laptop”").click()
    page.get_by_role("status").filter(has_text="no agent can use it any more").wait_for()
    assert "No connections yet." in page.content()
    assert GOOD_TOKEN not in live_server.log()
    context.close()


def test_a_connection_made_on_the_page_is_offered_on_the_card(browser, live_server):
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30_000)
    log_in_as_alice(page, live_server)
    page.goto(live_server.url + "/connections/")
    page.get_by_text("Connect Demo").first.click()  # opens the service's form
    page.get_by_label("Access token").fill(GOOD_TOKEN)
    page.get_by_label("Name for this connection").fill("Personal")
    page.get_by_role("button", name="Connect Demo").click()
    page.get_by_role("status").filter(has_text="Connected Demo “Personal”.").wait_for()
    context.close()

    for number, (scheme, width) in enumerate(LOOKS, start=1):
        context = browser.new_context(color_scheme=scheme, viewport={"width": width, "height": 900})
        page = context.new_page()
        page.set_default_timeout(30_000)
        log_in_as_alice(page, live_server)
        conversation = live_server.manage("shell", "-c", NEW_CONVERSATION).split()[-1]
        page.goto(f"{live_server.url}/c/{conversation}/")
        socket_open(page)
        send(page, "go")
        card = page.locator("article.part--connection.part--pending")
        card.wait_for()
        use = card.get_by_role("button", name="Use your existing Demo connection")
        assert use.is_visible() and "“Personal”" in card.inner_text()
        screenshot(card, f"connection-card-existing-{scheme}-{width}")
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
        assert serious_findings(page, f"connection card {scheme} {width}") == []
        if number == len(LOOKS):
            use.click()
            said = f"Using “Personal”: token sha256 {digest(GOOD_TOKEN)}"
            page.locator(".bubble.agent", has_text=said).wait_for()
        context.close()


def test_a_typed_secret_is_never_kept_in_the_tabs_drafts(browser, live_server):
    """Logged out mid-Connect, the card keeps what may be kept, never the credential: not after
    the refused Connect, not after a reload, and a draft that holds one is not put back."""
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30_000)
    # Bob has no Demo connection here (alice has one by now), so the card opens on its form.
    log_in(page, live_server, "bob")
    bobs = NEW_CONVERSATION.replace('username="alice"', 'username="bob"')
    conversation = live_server.manage("shell", "-c", bobs).split()[-1]
    page.goto(f"{live_server.url}/c/{conversation}/")
    socket_open(page)
    send(page, "list my repositories")
    card = page.locator("article.part--connection.part--pending")
    card.wait_for()
    part_id = card.get_attribute("id")

    context.clear_cookies(name="sessionid")  # the session expired
    card.get_by_label("Access token").fill(GOOD_TOKEN)
    card.get_by_label("Region").fill("us")
    card.get_by_role("button", name="Connect Demo").click()
    expect(card.get_by_role("alert")).to_contain_text("You were logged out.")
    storage = page.evaluate("() => ({...sessionStorage})")
    assert json.loads(storage[f"draft:{part_id}"])["field.region"] == ["us"]
    assert GOOD_TOKEN not in json.dumps(storage)

    page.reload()  # to the login page, in the same tab
    page.wait_for_url("**/accounts/login/**")
    assert GOOD_TOKEN not in json.dumps(page.evaluate("() => ({...sessionStorage})"))
    page.fill("#id_username", "bob")
    page.fill("#id_password", USERS["bob"])
    page.click("button[type=submit]")
    page.wait_for_url(f"**/c/{conversation}/")
    card = page.locator(f"#{part_id}")
    expect(card.get_by_label("Access token")).to_have_value("")
    assert GOOD_TOKEN not in json.dumps(page.evaluate("() => ({...sessionStorage})"))

    # A draft that holds a credential (an older page kept one) gives back all but it.
    page.evaluate(
        """([key, token]) => {
            const draft = {"field.token": [token], "field.region": ["eu"]};
            sessionStorage.setItem(key, JSON.stringify(draft));
            restoreDraft(document.querySelector(`#${key.slice(6)} .connection-form`), key);
        }""",
        [f"draft:{part_id}", GOOD_TOKEN],
    )
    expect(card.get_by_label("Region")).to_have_value("eu")
    expect(card.get_by_label("Access token")).to_have_value("")
    context.close()

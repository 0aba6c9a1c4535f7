"""The wizard's connection card in Chromium: a model-answered GitHub agent whose server takes
each person's Demo credential is made, and the card asking for it names that agent (not the
setup agent). Axe clean, light and dark, 375 and 1366 px (screenshots in test-artifacts/)."""

import json
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.axe import serious_findings
from tests.browser.chat import screenshot, socket_open
from tests.browser.conftest import served_copy
from tests.support.connections_support import new_key, services_file
from tests.support.fake_openai import MODEL, FakeOpenAI, text, tool_calls
from tests.test_onboarding_connection import DESCRIPTION, PROPOSAL

ENV_SERVER = Path(__file__).parent.parent / "support" / "mcp_env_server.py"
TOKEN = "tok-wizard-browser-81c2d7"
LOOKS = [("light", 375), ("dark", 375), ("light", 1366), ("dark", 1366)]


@pytest.fixture(scope="module")
def model():
    server = FakeOpenAI(tool_calls(("propose_configuration", PROPOSAL)), text("Done."))
    yield server
    server.close()


@pytest.fixture(scope="module")
def live_server(tmp_path_factory, prepared_database, model):
    workdir = tmp_path_factory.mktemp("wizard-connection")
    servers = workdir / "mcp_servers.toml"
    servers.write_text(
        '[servers.env]\ntitle = "Env server"\ntransport = "stdio"\n'
        f"command = {sys.executable!r}\nargs = [{str(ENV_SERVER)!r}]\n"
        'connection = "demo"\nplatforms = ["github"]\n'
    )
    env = {
        "CONNECTIONS_KEY": new_key(),
        "CONNECTION_SERVICES_FILE": str(services_file(workdir)),
        "MCP_SERVERS_FILE": str(servers),
        "LLM_PROVIDERS": json.dumps(
            [{"name": "fake", "base_url": model.base_url, "models": [MODEL]}]
        ),
    }
    with served_copy(prepared_database, workdir, env) as server:
        yield server


def test_the_card_names_the_agent_being_made_and_connecting_makes_it(page, live_server):
    page.set_default_timeout(30_000)
    page.get_by_role("button", name="New agent").click()
    page.wait_for_url("**/c/*/")
    socket_open(page)
    page.get_by_label("Message to Agent setup").fill(DESCRIPTION)
    page.keyboard.press("Enter")
    page.locator(".part--pending").get_by_role("button", name="Accept").click()
    who = page.locator(".part--pending", has_text="Who should answer this agent's messages?")
    who.get_by_role("button", name="Submit").click()

    card = page.locator("article.part--connection.part--pending")
    card.wait_for()
    name = PROPOSAL["name"]
    expect(card.locator(".asker")).to_have_text(f"{name} asks to use your Demo connection")
    expect(card).to_contain_text(f"{name} gets a reference to it.")
    for scheme, width in LOOKS:
        page.emulate_media(color_scheme=scheme)
        page.set_viewport_size({"width": width, "height": 900})
        screenshot(card, f"wizard-connection-card-{scheme}-{width}")
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
        assert serious_findings(page, f"wizard connection card {scheme} {width}") == []

    card.get_by_label("Access token").fill(TOKEN)
    card.get_by_role("button", name="Connect Demo").click()
    chip = page.locator("article.part--connection.part--submitted")
    expect(chip).to_contain_text("Connected: Demo")
    expect(page.locator(".bubble.agent:not(.live)").last).to_contain_text(f"{name} is ready.")
    assert TOKEN not in page.content() and TOKEN not in live_server.log()

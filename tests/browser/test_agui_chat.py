"""A person chats with an AG-UI agent (Pydantic AI, its own adapter): its steps and text show,
its `request_input` call is a form, and the answer brings the reply."""

import sqlite3

import pytest

from tests.agui_support import PYDANTIC_SERVER, AguiServer
from tests.browser.axe import serious_findings
from tests.browser.chat import ARTIFACTS, open_chat, screenshot, send
from tests.live_server import LiveServer

# Starting the playground and the agent's server is most of the time, on a busy machine.
pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def live_server(tmp_path_factory, prepared_database):
    workdir = tmp_path_factory.mktemp("agui-browser")
    agent = AguiServer(PYDANTIC_SERVER, workdir / "runs.log")
    agents = workdir / "agents.toml"
    agents.write_text(
        f'[agents.painter]\ntitle = "Painter"\ndescription = "Paints things."\n'
        f'url = "{agent.url("ask")}"\n'
        f'\n[agents.weather]\ntitle = "Weather"\nurl = "{agent.url("lookup")}"\n'
    )
    server = LiveServer(workdir, env={"AGUI_AGENTS_FILE": str(agents)})
    with sqlite3.connect(prepared_database) as source, sqlite3.connect(server.db_path) as copy:
        source.backup(copy)
    server.manage("agui_check")  # runs each agent once, and puts it on the home page
    server.start()
    yield server
    server.stop()
    agent.stop()


def test_the_agents_form_is_answered_and_its_reply_shows(page, live_server):
    open_chat(page, live_server, "Painter")
    send(page, "paint the fence")
    form = page.locator("article.part--pending", has_text="Which colour?")
    form.wait_for()
    page.set_viewport_size({"width": 1366, "height": 900})
    screenshot(page, "agui-form")
    assert serious_findings(page, "AG-UI agent's form") == []
    form.get_by_label("green").check()
    form.get_by_role("button", name="Submit").click()
    page.locator(".bubble.agent", has_text="You picked green.").wait_for()
    page.screenshot(path=ARTIFACTS / "agui-answered.png", full_page=True)
    page.set_viewport_size({"width": 375, "height": 800})
    page.emulate_media(color_scheme="dark")
    page.screenshot(path=ARTIFACTS / "agui-answered-dark-375.png", full_page=True)
    assert serious_findings(page, "AG-UI chat, dark, 375 px") == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 375


def test_the_agents_own_tool_calls_show_as_steps(page, live_server):
    open_chat(page, live_server, "Weather")
    send(page, "weather in Lisbon?")
    page.locator(".bubble.agent", has_text="It is sunny there.").wait_for()
    assert "Tool lookup returned: sunny" in page.locator("#transcript").inner_text()
    page.set_viewport_size({"width": 1366, "height": 700})
    screenshot(page, "agui-steps")
    page.set_viewport_size({"width": 375, "height": 700})
    page.emulate_media(color_scheme="dark")
    screenshot(page, "agui-steps-dark-375")
    assert serious_findings(page, "AG-UI steps, dark, 375 px") == []

"""A person chats with an AG-UI agent (Pydantic AI, its own adapter): its run and its own tool
calls show as steps, its text streams in, its `request_input` call is a form, and the answer
brings the reply; at 375 and 1366 px, light and dark, nothing scrolls sideways and axe finds
nothing serious."""

import pytest
from playwright.sync_api import expect

from tests.browser.axe import look_at, serious_findings
from tests.browser.chat import open_chat, screenshot, send
from tests.browser.conftest import served_copy
from tests.support.agui_support import BROKEN_SERVER, PYDANTIC_SERVER, AguiServer

# Starting the playground and the agent's server is most of the time, on a busy machine.
pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("agui-browser")


@pytest.fixture(scope="module")
def live_server(workdir, prepared_database):
    agent = AguiServer(PYDANTIC_SERVER, workdir / "runs.log")
    streamer = AguiServer(BROKEN_SERVER, workdir / "stream.log")
    agents = workdir / "agents.toml"
    agents.write_text(
        f'[agents.painter]\ntitle = "Painter"\ndescription = "Paints things."\n'
        f'url = "{agent.url("ask")}"\n'
        f'\n[agents.weather]\ntitle = "Weather"\nurl = "{agent.url("lookup")}"\n'
        f'\n[agents.streamer]\ntitle = "Streamer"\nurl = "{streamer.url("stream")}"\n'
    )
    with served_copy(
        prepared_database,
        workdir,
        {"AGUI_AGENTS_FILE": str(agents)},
        before_start=lambda server: server.manage(
            "shell", "-c", "from playground.agui.catalog import sync_agents; sync_agents()"
        ),
    ) as server:
        yield server
    agent.stop()
    streamer.stop()


def test_the_agents_form_is_answered_and_its_reply_shows(page, live_server):
    open_chat(page, live_server, "Painter")
    send(page, "paint the fence")
    form = page.locator("article.part--pending", has_text="Which colour?")
    form.wait_for()
    run = page.locator("details.step", has_text="AG-UI run")
    expect(run).to_have_attribute("data-state", "step-done")
    look_at(page, "agui-form")
    form.get_by_label("green").check()
    form.get_by_role("button", name="Submit").click()
    page.locator(".bubble.agent", has_text="You picked green.").wait_for()
    look_at(page, "agui-answered")


def test_the_agents_own_tool_calls_show_as_steps(page, live_server):
    open_chat(page, live_server, "Weather")
    send(page, "weather in Lisbon?")
    page.locator(".bubble.agent", has_text="It is sunny there.").wait_for()
    lookup = page.locator("details.step", has_text="tool lookup")
    expect(lookup).to_have_attribute("data-state", "step-done")
    lookup.locator("summary").click()
    expect(lookup.locator(".step-details")).to_contain_text('city: "Lisbon"')
    expect(lookup.locator(".step-details")).to_contain_text("sunny")
    look_at(page, "agui-steps")


def test_the_agents_text_streams_in(page, live_server, workdir):
    open_chat(page, live_server, "Streamer")
    send(page, "paint the fence")
    live = page.locator(".bubble.agent.live", has_text="Painting the")
    live.wait_for()  # the first words, while the agent has not finished its run
    screenshot(page, "agui-streaming")
    (workdir / "release").touch()
    page.locator(".bubble.agent:not(.live)", has_text="Painting the fence.").wait_for()
    expect(live).to_be_hidden()


def test_the_wire_panel_shows_each_run_input_and_event(page, live_server):
    open_chat(page, live_server, "Painter")
    send(page, "paint the gate")
    form = page.locator("article.part--pending", has_text="Which colour?")
    form.get_by_label("red").check()
    form.get_by_role("button", name="Submit").click()
    page.locator(".bubble.agent", has_text="You picked red.").wait_for()

    panel = page.locator("details.wire-panel")
    panel.locator("summary", has_text="Wire: messages with the server").click()
    entries = panel.locator(".wire-entry")
    expect(entries.first).to_contain_text("POST of run ")
    runs = entries.filter(has_text="→ sent").filter(has_text="RunAgentInput")
    expect(runs).to_have_count(2)  # the question's run, and the run after the answer
    received = entries.filter(has_text="← received")
    expect(received.filter(has_text="TOOL_CALL_START")).to_have_count(1)
    expect(received.filter(has_text="RUN_FINISHED")).to_have_count(2)
    runs.last.locator("summary").click()
    expect(runs.last.locator("pre")).to_contain_text('"role": "tool"')
    page.emulate_media(color_scheme="light")
    page.set_viewport_size({"width": 1366, "height": 1000})
    screenshot(panel, "agui-wire-panel-light-1366")
    findings = serious_findings(page, "AG-UI wire panel, light, 1366 px")
    page.set_viewport_size({"width": 375, "height": 900})
    page.emulate_media(color_scheme="dark")
    screenshot(panel, "agui-wire-panel-dark-375")
    findings += serious_findings(page, "AG-UI wire panel, dark, 375 px")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    assert findings == []

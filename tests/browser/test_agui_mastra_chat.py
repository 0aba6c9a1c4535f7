"""A person answers a Mastra tool's suspend() in the chat (the docs' example server, run as
written): the question is a form with the tool's words and its resume schema's fields, a reload
and a second tab keep it, Submit brings the reply and the tool's step, and the second tab gets
the answered card; at 375 and 1366 px, light and dark, nothing scrolls sideways and axe finds
nothing serious."""

import pytest
from playwright.sync_api import expect

from tests.browser.axe import look_at
from tests.browser.chat import open_chat, send
from tests.browser.conftest import log_in, served_copy
from tests.support.agui_support import agents_file
from tests.support.fake_openai import FakeOpenAI, text, tool_calls
from tests.support.mastra_support import MastraServer

# Starting the playground and Mastra's server is most of the time, on a busy machine.
pytestmark = pytest.mark.timeout(300)

QUESTION = "Where to, and for how long? (a weekend away)"


@pytest.fixture(scope="module")
def live_server(tmp_path_factory, prepared_database):
    workdir = tmp_path_factory.mktemp("mastra-browser")
    model = FakeOpenAI(
        tool_calls(("book_hotel", {"trip": "a weekend away"})), text("Your stay is booked.")
    )
    mastra = MastraServer(workdir, model.base_url)
    agents = agents_file(workdir, mastra.url)
    with served_copy(
        prepared_database,
        workdir,
        {"AGUI_AGENTS_FILE": str(agents)},
        before_start=lambda server: server.manage(
            "shell", "-c", "from playground.agui.catalog import sync_agents; sync_agents()"
        ),
    ) as server:
        yield server
    mastra.kill()
    model.close()


def test_a_suspended_tools_question_is_answered_as_a_form(page, browser, live_server):
    open_chat(page, live_server, "Test agent")
    send(page, "a weekend away")
    form = page.locator("article.part--pending", has_text=QUESTION)
    expect(form.get_by_label("City")).to_be_visible()
    expect(form.get_by_label("Nights")).to_be_visible()
    look_at(page, "mastra-form")

    page.reload()  # a reload keeps the form
    expect(form.get_by_label("City")).to_be_visible()
    other = browser.new_context().new_page()  # a second tab too
    log_in(other, live_server)
    other.goto(page.url)
    theirs = other.locator("article.part", has_text=QUESTION)
    expect(theirs.get_by_label("Nights")).to_be_visible()

    form.get_by_label("City").fill("Porto")
    form.get_by_label("Nights").fill("3")
    form.get_by_role("button", name="Submit").click()
    page.locator(".bubble.agent", has_text="Your stay is booked.").wait_for()
    expect(page.locator("details.step", has_text="tool book_hotel")).to_be_visible()
    expect(theirs).to_have_attribute("data-state", "submitted")  # pushed to the second tab
    look_at(page, "mastra-answered")
    other.context.close()

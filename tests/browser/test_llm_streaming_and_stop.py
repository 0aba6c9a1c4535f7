"""A model's reply streams into the chat as it arrives, and Stop ends it cleanly."""

import pytest

from tests.browser.axe import serious_findings
from tests.browser.conftest import served_copy
from tests.support.fake_openai import MODEL, FakeOpenAI, text

pytestmark = pytest.mark.timeout(300)  # the module's own server starts on a busy machine


@pytest.fixture(scope="module")
def fake():
    fake = FakeOpenAI(text("Once upon a time there was a fence.", hold=True))
    yield fake
    fake.close()


@pytest.fixture(scope="module")
def live_server(tmp_path_factory, prepared_database, fake):
    """This module's server knows one model: the fake one."""
    env = {"LLM_BASE_URL": fake.base_url, "LLM_MODELS": MODEL}
    with served_copy(prepared_database, tmp_path_factory.mktemp("llm"), env) as server:
        yield server


def test_the_reply_streams_in_and_stop_ends_it(page, live_server, fake, tmp_path):
    page.click("text=New LLM agent")
    page.wait_for_selector("#id_model")
    page.screenshot(path=str(tmp_path / "new-llm-agent.png"), full_page=True)
    assert serious_findings(page, "new LLM agent") == []
    page.fill("#id_name", "Storyteller")
    page.select_option("#id_model", f"default/{MODEL}")
    page.fill("#id_instructions", "Tell short stories.")
    page.click("text=Create and start chatting")
    page.wait_for_url("**/c/*/")
    page.wait_for_function("() => document.querySelector('[ws-connect]') && window.htmx")
    page.wait_for_selector("#status[data-state]", state="attached")

    page.fill("#composer-text", "tell me a story")
    page.keyboard.press("Enter")
    # The first words arrive over the socket while the model is still talking.
    live = page.wait_for_selector(".live:not([hidden]) >> text=Once")
    assert live.inner_text().strip() == "Once"
    stop = page.get_by_role("button", name="Stop")
    stop.wait_for()
    for width in (1366, 375):
        page.set_viewport_size({"width": width, "height": 800})
        page.screenshot(path=str(tmp_path / f"streaming-{width}.png"), full_page=True)
    assert serious_findings(page, "streaming") == []

    stop.click()
    # The notice itself, exactly: "text=" also matches the model step's outcome ("Stopped:
    # you stopped this reply.", folded away above the notice), and when that step's push came
    # first, the wait settled on it and waited for the hidden line to show (failed under load).
    page.get_by_text("You stopped this reply.", exact=True).wait_for()
    page.wait_for_selector("#status[data-state='idle-0']", state="attached")
    assert page.get_by_role("button", name="Stop").count() == 0
    page.reload()
    assert "You stopped this reply." in page.inner_text(".transcript")
    assert "Once" in page.inner_text(".transcript")
    page.screenshot(path=str(tmp_path / "stopped.png"), full_page=True)

"""The chat and the admin work under the Content-Security-Policy, and the policy holds.

The live server runs with DEBUG off, so it sends the same enforcing policy as production.
"""

import pytest
from playwright.sync_api import expect

from tests.browser.chat import ask, last_envelope, open_chat
from tests.browser.conftest import log_in, refused_by_policy
from tests.support.admin_support import PASSWORD
from tests.support.live_server import wait_for

TRIP = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "title": "City", "minLength": 2},
        "start": {"type": "string", "title": "Start", "format": "date"},
        "rooms": {"type": "string", "title": "Room", "enum": ["single", "double"]},
        "extras": {
            "type": "array",
            "title": "Extras",
            "items": {"enum": ["breakfast", "parking"]},
        },
        "flexible": {"type": "boolean", "title": "Dates are flexible"},
    },
    "required": ["city", "start"],
}


@pytest.fixture
def fresh_page(browser):
    context = browser.new_context()
    yield context.new_page()
    context.close()


def test_logging_in_and_answering_a_form_needs_no_exception_to_the_policy(fresh_page, live_server):
    refused = refused_by_policy(fresh_page)
    # The login page, the first-run wizard, the home page.
    log_in(fresh_page, live_server, through_the_form=True)
    open_chat(fresh_page, live_server, "Schema tester")
    fresh_page.set_default_timeout(30_000)  # two answers and a reply, on a busy machine

    part = ask(fresh_page, "Where and when?", TRIP)
    part.get_by_label("City").fill("L")
    part.get_by_label("Start").fill("2031-05-04")
    part.get_by_role("button", name="Submit").click()
    # Inline: the field is marked. (The same words are its hint before the answer is sent,
    # so waiting for them would type into the form the refusal is about to replace.)
    expect(part.get_by_label("City")).to_have_attribute("aria-invalid", "true")
    expect(part.get_by_text("Use at least 2 characters.")).to_be_visible()
    part.get_by_label("City").fill("Lisbon")
    part.get_by_label("double", exact=True).check()
    part.get_by_label("parking", exact=True).check()
    part.get_by_role("button", name="Submit").click()

    part.locator(".chip--submitted").wait_for()
    fresh_page.locator(".bubble.agent", has_text="I received this envelope").wait_for()
    assert last_envelope(fresh_page)["content"] == {
        "city": "Lisbon",
        "start": "2031-05-04",
        "rooms": "double",
        "extras": ["parking"],
    }  # "flexible" was left alone, so it is not sent
    assert refused == []


def test_an_injected_inline_script_does_not_run(fresh_page, live_server):
    refused = refused_by_policy(fresh_page)
    response = fresh_page.goto(live_server.url + "/accounts/login/")
    assert "script-src 'self'" in response.headers["content-security-policy"]

    fresh_page.evaluate(
        """() => {
          const script = document.createElement("script");
          script.textContent = "window.injected = true";
          document.head.append(script);
        }"""
    )

    wait_for(lambda: refused, timeout=5, message="Chromium reported no refused script")
    assert fresh_page.evaluate("window.injected") is None


def test_a_reviewer_sees_questions_in_the_admin_with_nothing_refused(fresh_page, live_server):
    live_server.manage(
        "shell",
        "-c",
        "from tests.support.admin_support import PASSWORD, make_staff, seed_review_data\n"
        "make_staff('reviewer-ruth', reviewer=True, password=PASSWORD)\n"
        "seed_review_data('alice')",
    )
    refused = refused_by_policy(fresh_page)
    fresh_page.goto(live_server.url + "/admin/")
    fresh_page.fill("#id_username", "reviewer-ruth")
    fresh_page.fill("#id_password", PASSWORD)
    fresh_page.click("input[type=submit]")

    fresh_page.get_by_role("link", name="Elicitation overview").click()
    fresh_page.goto(live_server.url + "/admin/elicitation/part/")
    fresh_page.get_by_role("link", name="Which environment should I deploy to?").first.click()
    question = fresh_page.frame_locator("iframe.chat-frame")
    expect(question.get_by_text("Which environment should I deploy to?")).to_be_visible()

    assert refused == []


def test_the_api_docs_page_works_under_the_policy(fresh_page, live_server):
    refused = refused_by_policy(fresh_page)
    fresh_page.goto(live_server.url + "/api/v1/docs")
    fresh_page.get_by_text("/api/v1/requests/{request_id}/cancel").wait_for()
    assert refused == []

"""The schema workbench in Chromium: type a payload and see the form, try it, share it."""

import json
import os

from playwright.sync_api import Page, expect

from tests.browser.axe import serious_findings
from tests.browser.chat import ARTIFACTS
from tests.browser.conftest import log_in
from tests.support.live_server import BASE_DIR

PAYLOAD = {
    "message": "Which environment?",
    "requestedSchema": {
        "type": "object",
        "properties": {
            "env": {"type": "string", "title": "Environment", "enum": ["staging", "production"]},
            "replicas": {"type": "integer", "title": "Replicas", "minimum": 1, "maximum": 9},
        },
        "required": ["env"],
    },
}
TEXT = json.dumps(PAYLOAD, indent=2)


def open_workbench(page: Page, server, text: str = TEXT) -> None:
    page.goto(server.url + "/workbench/")
    page.fill("#payload", text)
    expect(page.locator("#results .part-message")).to_have_text(PAYLOAD["message"])


def test_a_payload_typed_before_the_pages_scripts_ran_is_previewed(page, live_server):
    """On a slow load a person can type before htmx listens (it sets up its triggers once the
    deferred scripts ran): what they typed is previewed once it does, not lost."""
    held = []
    page.route("**/workbench*.js", lambda route: held.append(route))  # waits until let go
    page.goto(live_server.url + "/workbench/", wait_until="commit")
    page.fill("#payload", TEXT)
    while not held:
        page.wait_for_timeout(50)
    held[0].continue_()
    expect(page.get_by_role("radio", name="staging")).to_be_visible()
    expect(page.locator("#diagnostics")).to_have_text("Valid: 2 fields, shown as below.")


def test_typing_a_payload_changes_the_form_and_bad_json_keeps_it(page, live_server):
    page.goto(live_server.url + "/")
    page.get_by_role("link", name="schema workbench").click()
    expect(page.get_by_role("heading", name="Schema workbench")).to_be_visible()
    page.fill("#payload", TEXT)
    expect(page.get_by_role("radio", name="staging")).to_be_visible()
    expect(page.get_by_role("spinbutton", name="Replicas")).to_be_visible()
    expect(page.locator("#diagnostics")).to_have_text("Valid: 2 fields, shown as below.")

    page.locator("#payload").press_sequentially(",")  # a trailing comma: not JSON
    last = TEXT.count("\n") + 1
    expect(page.locator("#diagnostics")).to_contain_text(
        f"The JSON has ended, but more follows at line {last}, column 2: “,”."
    )
    expect(page.get_by_role("radio", name="staging")).to_be_visible()  # the last good preview
    expect(page.locator("#preview-state")).to_have_text(
        "Showing the last payload that could be read."
    )
    assert page.locator("#results").evaluate("e => e.inert")  # the stale form takes no answer
    page.get_by_role("button", name=f"Go to line {last}, column 2").click()
    assert page.evaluate("document.activeElement.id") == "payload"


def test_the_preview_form_submits_to_errors_inline_and_then_an_envelope(page, live_server):
    open_workbench(page, live_server)
    page.get_by_role("radio", name="staging").check()
    page.get_by_role("spinbutton", name="Replicas").fill("12")
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#results .field--invalid")).to_contain_text("9")
    expect(page.locator("#envelope")).to_contain_text("Nothing would reach the agent yet")
    expect(page.get_by_role("spinbutton", name="Replicas")).to_have_value("12")  # kept

    page.get_by_role("spinbutton", name="Replicas").fill("3")
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#results article")).to_have_attribute("data-state", "submitted")
    envelope = json.loads(page.locator("#envelope pre.envelope").inner_text())
    assert envelope == {"action": "accept", "content": {"env": "staging", "replicas": 3}}
    mcp_result = json.loads(page.locator("#envelope pre.mcp-result").inner_text())
    assert mcp_result == envelope

    page.get_by_role("button", name="Answer again").click()
    expect(page.locator("#results article")).to_have_attribute("data-state", "pending")
    expect(page.get_by_role("radio", name="staging")).not_to_be_checked()


def test_an_optional_yes_no_left_alone_is_not_sent_and_a_chosen_no_is_false(page, live_server):
    schema = {
        **PAYLOAD["requestedSchema"],
        "properties": {
            **PAYLOAD["requestedSchema"]["properties"],
            "notify": {"type": "boolean", "title": "Tell the team"},
        },
    }
    open_workbench(page, live_server, json.dumps({**PAYLOAD, "requestedSchema": schema}))
    notify = page.get_by_role("group", name="Tell the team")
    expect(notify.get_by_role("radio", name="No answer")).to_be_checked()
    page.get_by_role("radio", name="staging").check()
    page.get_by_role("button", name="Submit").click()
    envelope = json.loads(page.locator("#envelope pre.envelope").inner_text())
    assert envelope["content"] == {"env": "staging"}  # nobody said no

    page.get_by_role("button", name="Answer again").click()
    page.get_by_role("radio", name="staging").check()
    notify.get_by_role("radio", name="No", exact=True).check()
    page.get_by_role("button", name="Submit").click()
    envelope = json.loads(page.locator("#envelope pre.envelope").inner_text())
    assert envelope["content"] == {"env": "staging", "notify": False}


def test_a_big_paste_is_answered_in_place_and_the_text_stays(page, live_server):
    open_workbench(page, live_server)
    payload = {"message": "Щ" * 50_000, "requestedSchema": {"type": "object"}}
    cyrillic = json.dumps(payload, ensure_ascii=False)  # 100 KB, 300 KB URL-encoded
    brackets = "[" * 60_000 + "]" * 60_000
    for text, problem in (
        (cyrillic, "payload is larger than 64 KiB"),
        (brackets, "nests more than 32 levels deep"),
    ):
        page.fill("#payload", text)
        expect(page.locator("#diagnostics")).to_contain_text(problem)
        assert page.input_value("#payload") == text  # the editor and its text are kept
        expect(page.get_by_role("heading", name="Schema workbench")).to_be_visible()

    page.fill("#payload", TEXT)
    expect(page.locator("#diagnostics")).to_have_text("Valid: 2 fields, shown as below.")
    page.get_by_text("Answer as JSON", exact=True).click()
    page.fill("#typed-content", json.dumps({"env": "x" * 300_000}))
    page.get_by_role("button", name="Check this answer").click()
    expect(page.locator("#diagnostics")).to_contain_text(
        "and the server reads at most 256 KiB in one request, so nothing was sent."
    )
    expect(page.get_by_role("radio", name="staging")).to_be_visible()  # nothing was replaced


def test_the_preview_answers_like_the_chat_without_script_errors(page, live_server):
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    open_workbench(page, live_server)
    page.wait_for_function("() => location.hash.startsWith('#p=')")  # the share link is in place
    expect(page.locator("#results article")).to_have_id("part-preview")
    for action, state in (("Decline", "declined"), ("Cancel", "cancelled"), ("Submit", "")):
        if action == "Submit":
            page.get_by_role("radio", name="staging").check()
            state = "submitted"
        page.get_by_role("button", name=action, exact=True).click()
        expect(page.locator("#results article")).to_have_attribute("data-state", state)
        page.get_by_role("button", name="Answer again").click()
        expect(page.locator("#results article")).to_have_attribute("data-state", "pending")
    assert errors == []


def test_a_stale_preview_is_readable_and_takes_no_answer(page, live_server):
    findings = []
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        open_workbench(page, live_server)
        page.locator("#payload").press("End")
        page.locator("#payload").press_sequentially(",")  # no longer JSON: the preview is stale
        expect(page.locator("#preview-state")).to_contain_text("Showing the last payload")
        expect(page.locator("#results")).to_have_js_property("inert", True)
        assert page.locator("#results .part-message").is_visible()
        findings += serious_findings(page, f"stale preview {scheme}")
        page.locator("#results button[value=accept]").click(force=True)  # a click goes nowhere
        expect(page.locator("#envelope")).not_to_contain_text('"action"')
    assert findings == []


def test_the_keyboard_indents_in_the_editor_and_leaves_it_with_escape_then_tab(page, live_server):
    open_workbench(page, live_server)
    expect(page.get_by_label("Start from")).to_have_value("")  # edited: no example named
    page.locator("#payload").press("Control+End")
    page.keyboard.press("Tab")
    assert page.input_value("#payload").endswith("}  ")  # Tab indented, focus stayed
    assert page.evaluate("document.activeElement.id") == "payload"
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") != "payload"


def test_an_answer_typed_as_json_is_checked_like_the_form(page, live_server):
    open_workbench(page, live_server)
    page.get_by_text("Answer as JSON", exact=True).click()
    page.fill("#typed-content", '{"env": "qa"}')
    page.get_by_role("button", name="Check this answer").click()
    expect(page.locator("#envelope")).to_contain_text("Environment (env): Choose one of")
    page.fill("#typed-content", '{"env": "production"}')
    page.get_by_role("button", name="Check this answer").click()
    expect(page.locator("#envelope pre.envelope")).to_contain_text('"env": "production"')


def test_a_share_link_reproduces_the_payload(page, live_server):
    open_workbench(page, live_server)
    page.wait_for_function("() => location.hash.startsWith('#p=')")
    link = page.url
    assert "Which" not in link  # compressed, in the fragment: the server never sees it
    other = page.context.new_page()
    other.goto(link)
    expect(other.get_by_role("radio", name="production")).to_be_visible()
    assert json.loads(other.input_value("#payload")) == PAYLOAD
    other.close()


def test_ask_this_in_a_chat_opens_the_schema_tester_with_the_payload(page, live_server):
    open_workbench(page, live_server)
    page.get_by_role("button", name="Ask this in a chat").click()
    page.wait_for_url("**/c/*/")
    question = page.locator(".part--pending")
    expect(question.locator(".part-message")).to_have_text(PAYLOAD["message"])
    question.get_by_text("Show wire").click()  # loaded when opened
    expect(question.locator(".wire-json").first).to_contain_text('"message": "Which environment?"')
    expect(question.locator(".wire-times")).to_contain_text("Answerednot yet")  # <dt><dd>


def test_it_reads_at_375_and_1366_in_light_and_dark_without_serious_findings(page, live_server):
    findings = []
    for width in (375, 1366):
        for scheme in ("light", "dark"):
            page.set_viewport_size({"width": width, "height": 900})
            page.emulate_media(color_scheme=scheme)
            open_workbench(page, live_server)
            for summary in page.locator("#results details summary").all():
                summary.click()  # the copy-as blocks open
            findings += serious_findings(page, f"workbench {width}px {scheme}")
            if width == 375:  # the editor sits above the preview
                editor, preview = page.locator("#payload"), page.locator("#results")
                assert editor.bounding_box()["y"] < preview.bounding_box()["y"]
    assert findings == []


def test_the_readme_screenshot_shows_warnings_a_form_and_its_envelope(browser, live_server):
    context = browser.new_context(viewport={"width": 1366, "height": 1000})
    page = context.new_page()
    log_in(page, live_server)
    schema = {
        **PAYLOAD["requestedSchema"],
        "properties": {
            **PAYLOAD["requestedSchema"]["properties"],
            "releaseNotes": {"type": "string", "format": "textarea"},
        },
    }
    open_workbench(page, live_server, json.dumps({**PAYLOAD, "requestedSchema": schema}, indent=2))
    expect(page.locator(".warnings li")).to_have_count(2)  # the alias and the humanized name
    page.get_by_role("radio", name="production").check()
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#envelope pre.envelope")).to_be_visible()
    # Written to test-artifacts/ on every run; README_SCREENSHOTS=1 refreshes the README's.
    docs = BASE_DIR / "docs/screenshots" if os.environ.get("README_SCREENSHOTS") else ARTIFACTS
    docs.mkdir(parents=True, exist_ok=True)
    page.evaluate("document.activeElement.blur()")
    page.locator(".workbench").screenshot(path=docs / "workbench.png")
    context.close()

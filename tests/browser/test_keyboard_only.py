"""A question answered with the keyboard alone: focus lands on the answer, never on <body>."""

from playwright.sync_api import Page, expect

from tests.browser.chat import ask, open_chat, socket_open

SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "title": "City"},
        "nights": {"type": "integer", "title": "Nights", "minimum": 1},
    },
    "required": ["city"],
}


def focused(page: Page) -> str:
    """Return what has focus: an element's id, or "body"."""
    return page.evaluate("(e => e.id || e.tagName.toLowerCase())(document.activeElement)")


def tab_back_to(page: Page, dom_id: str) -> None:
    """Shift+Tab from the composer until the field has focus (a few presses, not forever)."""
    for _ in range(12):
        if focused(page) == dom_id:
            return
        page.keyboard.press("Shift+Tab")
    raise AssertionError(f"{dom_id} never got focus; focus is on {focused(page)}")


def test_a_form_completed_with_the_keyboard_leaves_focus_on_its_answer(page, live_server):
    open_chat(page, live_server, "Schema tester")
    part = ask(page, "Where to?", SCHEMA)
    part_id = part.get_attribute("id")
    # The question arrived without taking focus from the composer.
    assert focused(page) == "composer-text"

    tab_back_to(page, f"{part_id}-city")
    page.keyboard.type("Bergen")
    page.keyboard.press("Tab")
    page.keyboard.type("3")
    page.keyboard.press("Enter")  # submits the form with its first button, Submit

    expect(page.locator(f"#{part_id}")).to_have_attribute("data-state", "submitted")
    page.wait_for_function(f"() => document.activeElement.id === '{part_id}'")
    assert "Bergen" in page.locator(f"#{part_id}").inner_text()


def test_declining_and_cancelling_leave_focus_on_the_question(page, live_server):
    open_chat(page, live_server, "Schema tester")
    for button, state in (("Decline", "declined"), ("Cancel", "cancelled")):
        part = ask(page, f"Where to? ({button})", SCHEMA)
        part_id = part.get_attribute("id")
        tab_back_to(page, f"{part_id}-city")
        for _ in range(6):
            page.keyboard.press("Tab")
            if page.evaluate("document.activeElement.textContent.trim()") == button:
                break
        page.keyboard.press("Enter")
        expect(page.locator(f"#{part_id}")).to_have_attribute("data-state", state)
        page.wait_for_function(f"() => document.activeElement.id === '{part_id}'")
        page.locator("#composer-text").focus()


def test_a_disabled_submit_says_what_is_missing_and_links_to_it(page, live_server):
    open_chat(page, live_server, "Schema tester")
    schema = {**SCHEMA, "required": ["city", "nights"]}
    part = ask(page, "Where to, and how long?", schema)
    submit = part.get_by_role("button", name="Submit")
    expect(submit).to_be_disabled()
    expect(submit).to_have_accessible_description("Fill in: City, Nights")
    part.get_by_role("link", name="Nights").click()
    assert focused(page) == f"{part.get_attribute('id')}-nights"
    page.keyboard.type("2")
    expect(submit).to_have_accessible_description("Fill in: City")
    part.get_by_label("City").fill("Bergen")
    expect(submit).to_be_enabled()
    expect(part.locator("[data-missing]")).to_have_count(0)


def test_a_half_typed_answer_survives_a_reload(page, live_server):
    open_chat(page, live_server, "Schema tester")
    part = ask(page, "Where to?", SCHEMA)
    part.get_by_label("City").fill("Berg")
    page.reload()
    socket_open(page)
    expect(page.locator("article.part--pending").last.get_by_label("City")).to_have_value("Berg")

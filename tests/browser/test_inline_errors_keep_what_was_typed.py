"""A rejected answer comes back with the problems inline and everything the person typed."""

from playwright.sync_api import expect

from tests.browser.chat import ask, last_envelope, open_chat, screenshot

INSTRUMENTS = [f"Instrument {n}" for n in range(1, 11)]
SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name"},
        "email": {"type": "string", "format": "email", "title": "Email"},
        "age": {"type": "integer", "minimum": 18, "title": "Age"},
        "subscribe": {"type": "boolean", "title": "Subscribe"},
        "days": {
            "type": "array",
            "title": "Days",
            "items": {"type": "string", "enum": ["mon", "tue", "wed"]},
        },
        "instruments": {
            "type": "array",
            "title": "Instruments",
            "items": {"type": "string", "enum": INSTRUMENTS},
        },
        "bio": {"type": "string", "format": "multiline", "title": "Bio"},
    },
    "required": ["name", "email"],
}


def test_errors_show_inline_and_nothing_typed_is_lost(page, live_server):
    open_chat(page, live_server, "Schema tester")
    part = ask(page, "Tell us about yourself", SCHEMA)
    submit = part.get_by_role("button", name="Submit")
    assert submit.is_disabled()  # name and email are required
    part.get_by_label("Name").fill("Ada")
    part.get_by_label("Email").fill("ada-at-example")
    assert submit.is_enabled()
    part.get_by_label("Age").fill("17")
    subscribe = part.get_by_role("group", name="Subscribe").get_by_role("radio", name="Yes")
    subscribe.check()
    part.get_by_label("tue").check()
    part.get_by_label("Instruments").select_option(["Instrument 2", "Instrument 9"])
    part.get_by_label("Bio").fill("Line one\nLine two")
    submit.click()

    email = part.get_by_label("Email")
    part.locator(".field--invalid").first.wait_for()
    assert part.get_attribute("data-state") == "pending"
    assert "Enter a valid email address." in part.inner_text()
    assert "Enter at least 18." in part.inner_text()
    assert email.get_attribute("aria-invalid") == "true"
    assert email.evaluate("e => document.activeElement === e")  # focus goes to the first problem
    assert part.get_by_label("Name").input_value() == "Ada"
    assert email.input_value() == "ada-at-example"
    assert part.get_by_label("Age").input_value() == "17"
    assert subscribe.is_checked()
    assert part.get_by_label("tue").is_checked() and not part.get_by_label("mon").is_checked()
    selected = part.get_by_label("Instruments").evaluate(
        "select => [...select.selectedOptions].map(o => o.value)"
    )
    assert selected == ["Instrument 2", "Instrument 9"]
    assert part.get_by_label("Bio").input_value() == "Line one\nLine two"
    screenshot(part, "inline-errors")

    email.fill("ada@example.com")
    part.get_by_label("Age").fill("36")
    part.get_by_role("button", name="Submit").click()
    page.locator(".bubble.agent", has_text="I received this envelope").wait_for()
    assert last_envelope(page)["content"] == {
        "name": "Ada",
        "email": "ada@example.com",
        "age": 36,
        "subscribe": True,
        "days": ["tue"],
        "instruments": ["Instrument 2", "Instrument 9"],
        "bio": "Line one\nLine two",
    }


def test_typing_after_a_refusal_goes_on_from_what_was_typed(page, live_server):
    open_chat(page, live_server, "Schema tester")
    city = {"type": "string", "title": "City", "minLength": 2}
    part = ask(page, "Where to?", {"type": "object", "properties": {"city": city}})
    part.get_by_label("City").fill("L")
    part.get_by_role("button", name="Submit").click()

    field = part.get_by_label("City")
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(field).to_be_focused()  # the field to fix, with the caret after the "L"
    page.keyboard.type("isbon")
    expect(field).to_have_value("Lisbon")
    screenshot(part, "refusal-typed-on")


def test_an_answer_too_big_for_the_server_is_refused_in_place_and_kept(page, live_server):
    open_chat(page, live_server, "Schema tester")
    notes = {"type": "string", "format": "multiline", "title": "Notes"}
    schema = {"type": "object", "properties": {"notes": notes}}
    part = ask(page, "Any notes for the release?", schema)
    typed = "щ" * 60_000  # 360 KB once URL-encoded: past the 256 KiB the server reads
    part.get_by_label("Notes").fill(typed)
    part.get_by_role("button", name="Submit").click()
    expect(part.get_by_role("alert")).to_contain_text(
        "and the server reads at most 256 KiB in one request, so nothing was sent."
    )
    assert part.get_by_label("Notes").input_value() == typed
    assert part.get_attribute("data-state") == "pending"

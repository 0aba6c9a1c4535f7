"""Answer every reference payload through the Schema tester and read back the envelope it got."""

import re

import pytest
from playwright.sync_api import Locator

from tests.browser.chat import ask, last_envelope, open_chat, screenshot
from tests.browser.conftest import log_in
from tests.support.golden import reference_examples

EXAMPLES = reference_examples()
ADA = {"name": "Ada Lovelace", "email": "ada@example.com"}

# For each example: what the person does, then the content the agent must receive.
# ("fill", label, text), ("tick", label), ("choose", group, option)
ANSWERS = {
    "single_required_string": (
        [("fill", "Name", "octocat")],
        {"name": "octocat"},
    ),
    "contact_form": (
        [
            ("fill", "Name", "Ada Lovelace"),
            ("fill", "Email", "ada@example.com"),
            ("fill", "Age", "36"),
        ],
        {**ADA, "age": 36},
    ),
    "alternative_date": (
        [("tick", "Accept Alternative")],
        {"accept_alternative": True, "date": "2025-12-26"},
    ),
    "contact_with_plan": (
        [
            ("fill", "Name", "Ada Lovelace"),
            ("fill", "Email", "ada@example.com"),
            ("fill", "Age", "40"),
            ("choose", "Plan", "pro"),
        ],
        {**ADA, "age": 40, "plan": "pro"},
    ),
    "enum_variants": (
        [
            ("fill", "User name", "Ada"),
            ("choose", "Favorite color", "Green"),
            ("choose", "Favorite colors", "Green"),
            ("choose", "Color", "Blue"),
        ],
        {
            "user_name": "Ada",
            "favorite_color": "green",
            "favorite_colors": ["red", "green"],
            "color": "blue",
        },
    ),
    "everything_server_all_types": (
        [
            ("fill", "String", "Ada Lovelace"),
            ("choose", "Boolean", "Yes"),  # optional, no default: Yes / No / No answer
            ("fill", "Email", "ada@example.com"),
            ("fill", "Homepage", "https://example.com/ada"),
            ("fill", "Birthdate", "1815-12-10"),
            ("fill", "Integer", "7"),
            ("choose", "Untitled single select enum", "Rachel"),
            ("choose", "Untitled multiple select enum", "Piano"),
            ("choose", "Titled single select enum", "Green Lantern"),
            ("choose", "Titled multiple select enum", "Salmon"),
            ("choose", "Legacy titled enum", "Dogs"),
        ],
        {
            "name": "Ada Lovelace",
            "check": True,
            "firstLine": "It was a dark and stormy night.",
            "email": "ada@example.com",
            "homepage": "https://example.com/ada",
            "birthdate": "1815-12-10",
            "integer": 7,
            "number": 3.14,
            "untitledSingleSelectEnum": "Rachel",
            "untitledMultipleSelectEnum": ["Guitar", "Piano"],
            "titledSingleSelectEnum": "hero-2",
            "titledMultipleSelectEnum": ["fish-1", "fish-2"],
            "legacyTitledEnum": "pet-2",
        },
    ),
    "registration_lengths_enumnames": (
        [
            ("fill", "Username", "ada_l"),
            ("fill", "Email", "ada@example.com"),
            ("choose", "Plan", "Team"),
        ],
        {"username": "ada_l", "email": "ada@example.com", "plan": "team"},
    ),
    "nullable_anyof_legacy_server": (
        [("fill", "Name", "Ada Lovelace")],
        {"name": "Ada Lovelace", "subscribe": False},
    ),
    "confirmation_only": ([], {}),
}


def named(label: str) -> re.Pattern:
    """Match a label with or without its required mark ("Name * (required)")."""
    return re.compile(rf"^\s*{re.escape(label)}\s*(\*\s*)?(\(required\))?\s*$")


def do(part: Locator, step: tuple) -> None:
    match step:
        case ("fill", label, text):
            part.get_by_label(named(label)).fill(text)
        case ("tick", label):
            part.get_by_label(named(label)).check()
        case ("choose", group, option):
            part.get_by_role("group", name=named(group)).get_by_label(option, exact=True).check()


def test_every_reference_example_has_an_answer():
    assert set(ANSWERS) == set(EXAMPLES)


@pytest.mark.parametrize("name", list(ANSWERS))
def test_the_agent_receives_the_envelope_for_each_reference_example(page, live_server, name):
    open_chat(page, live_server, "Schema tester")
    example = EXAMPLES[name]
    part = ask(page, example["message"], example["requestedSchema"])
    assert example["message"] in part.locator(".part-message").inner_text()
    steps, content = ANSWERS[name]
    submit = part.get_by_role("button", name="Submit")
    for step in steps:
        do(part, step)
    submit.click()

    page.locator(".bubble.agent", has_text="I received this envelope").wait_for()
    assert last_envelope(page) == {"action": "accept", "content": content}
    assert page.locator(f"#{part.get_attribute('id')}").get_attribute("data-state") == "submitted"
    if name == "everything_server_all_types":
        chip = page.locator("article.part--submitted")
        assert "Green Lantern" in chip.inner_text() and "hero-2" not in chip.inner_text()
        screenshot(chip, "chip-everything-server")


def test_a_date_time_is_sent_back_in_rfc_3339_with_the_persons_offset(browser, live_server):
    context = browser.new_context(timezone_id="Asia/Kolkata")
    page = context.new_page()
    # bob's first login in this module: his zone is taken from this browser (alice's already
    # came from the other tests' browsers).
    log_in(page, live_server, "bob")
    open_chat(page, live_server, "Schema tester")
    schema = {
        "type": "object",
        "properties": {"starts": {"type": "string", "format": "date-time", "title": "Starts"}},
        "required": ["starts"],
    }
    part = ask(page, "When should the window start?", schema)
    part.get_by_label("Starts").fill("2025-12-26T14:30")
    part.get_by_role("button", name="Submit").click()
    page.locator(".bubble.agent", has_text="I received this envelope").wait_for()
    assert last_envelope(page) == {
        "action": "accept",
        "content": {"starts": "2025-12-26T14:30:00+05:30"},
    }
    context.close()

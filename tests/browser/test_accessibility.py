"""axe-core finds nothing serious or critical in our pages and fragments, light and dark.

Covered: home, a pending form with every kind of field, chips of every state (long code,
date-times), a degraded notice, the approval card, the wizard's config card, and the chat
fragment the admin's part page shows (checked on its own page: the admin's chrome is Django's).
"""

import json
import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.axe import serious_findings
from tests.browser.chat import ask, open_chat, screenshot, send, socket_open
from tests.browser.conftest import log_in

STAFF_PASSWORD = "staff-password-1"
EVERY_KIND = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "description": "As on your badge."},
        "email": {"type": "string", "format": "email", "title": "Email"},
        "site": {"type": "string", "format": "uri", "title": "Web site"},
        "day": {"type": "string", "format": "date", "title": "Day"},
        "starts": {"type": "string", "format": "date-time", "title": "Starts"},
        "count": {"type": "integer", "title": "Count", "minimum": 1, "maximum": 9},
        "ratio": {"type": "number", "title": "Ratio"},
        "agree": {"type": "boolean", "title": "I agree"},
        "plan": {
            "type": "string",
            "title": "Plan",
            "oneOf": [
                {"const": "free", "title": "Free", "description": "For trying it out."},
                {"const": "pro", "title": "Pro", "description": "For teams."},
            ],
        },
        "region": {"type": "string", "title": "Region", "enum": [f"r{n}" for n in range(7)]},
        "tags": {"type": "array", "title": "Tags", "items": {"enum": ["a", "b", "c"]}},
        "many": {"type": "array", "title": "Many", "items": {"enum": [f"m{n}" for n in range(9)]}},
        "notes": {"type": "string", "format": "multiline", "title": "Notes"},
        "snippet": {"type": "string", "title": "Snippet", "x-ui": {"widget": "code"}},
    },
    "required": ["name", "agree", "plan"],
}
NESTED = {"type": "object", "properties": {"config": {"type": "object"}}}
LONG_CODE = "\n".join(f"  step_{n}: run the {n}th check" for n in range(12))


@pytest.fixture(scope="module")
def staff(live_server) -> str:
    live_server.manage(
        "shell",
        "-c",
        "from tests.support.admin_support import make_staff\n"
        f"make_staff('admin-ada', superuser=True, password={STAFF_PASSWORD!r})",
    )
    return "admin-ada"


def answer_every_kind(page: Page) -> None:
    part = ask(page, "Tell me everything", EVERY_KIND)
    part.get_by_label("Name").fill("Ada")
    part.get_by_label("I agree").check()
    part.get_by_role("radio", name="Pro").check()
    part.get_by_label("Starts").fill("2031-07-17T09:45")
    part.get_by_label("Snippet").fill(LONG_CODE)
    part.get_by_role("button", name="Submit").click()
    expect(page.locator("article.part").last).to_have_attribute("data-state", "submitted")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_findings_in_our_pages(browser, live_server, staff, scheme):
    context = browser.new_context(color_scheme=scheme, viewport={"width": 1000, "height": 900})
    page = context.new_page()
    log_in(page, live_server)
    findings = serious_findings(page, "home")

    open_chat(page, live_server, "Schema tester")
    ask(page, "Tell me everything", EVERY_KIND)
    findings += serious_findings(page, "pending form")
    page.locator("article.part").last.get_by_role("button", name="Cancel").click()
    page.locator(".bubble.agent", has_text='"cancel"').wait_for()
    answer_every_kind(page)
    screenshot(page.locator("article.part--submitted").last, f"chip-every-kind-{scheme}")
    part = ask(page, "Decline this", EVERY_KIND)
    part.get_by_role("button", name="Decline").click()
    expect(part).to_have_attribute("data-state", "declined")
    page.locator(".bubble.agent", has_text='"decline"').wait_for()
    send(page, json.dumps({"message": "Configure it", "requestedSchema": NESTED}))
    page.locator("article.part--degraded").wait_for()
    findings += serious_findings(page, "chips and degraded notice")

    open_chat(page, live_server, "Deploy assistant")
    send(page, "Ship the new checkout page")
    form = page.locator("article.part--pending")
    form.get_by_label("Staging").check()
    form.get_by_label("Version").fill("v1.4.2")
    form.get_by_role("button", name="Submit").click()
    page.locator(".part--approval.part--pending").wait_for()
    findings += serious_findings(page, "approval card")

    page.goto(live_server.url + "/")
    page.get_by_role("button", name="New agent").click()
    page.wait_for_url("**/c/*/")
    socket_open(page)
    page.get_by_label("Message to Agent setup").fill(
        "Every Monday morning, email me a digest of unanswered Intercom conversations"
    )
    page.keyboard.press("Enter")
    for step in ("should the agent run?", "Which time zone", "Which email address"):
        # The next question can arrive just before the answered one turns into its chip.
        pending = page.locator(".part--pending").filter(
            has=page.locator(".part-message", has_text=step)
        )
        pending.wait_for()
        if step == "Which time zone":
            pending.get_by_label(re.compile("^Time zone")).select_option("Europe/Paris")
        if step == "Which email address":
            pending.get_by_label("Email address", exact=True).fill("ops@example.com")
        pending.get_by_role("button", name="Submit").click()
    page.locator(".part--pending .part-message", has_text="Here is the agent").wait_for()
    expect(page.locator(".part--pending")).to_have_count(1)
    findings += serious_findings(page, "config card")

    context.close()

    context = browser.new_context(color_scheme=scheme, viewport={"width": 1000, "height": 900})
    page = context.new_page()
    for state in ("submitted", "pending"):
        findings += admin_fragment_findings(page, live_server, staff, state)
    context.close()
    assert not findings, "\n".join(findings)


def admin_fragment_findings(page: Page, live_server, staff: str, state: str) -> list[str]:
    """Return the findings in the chat fragment of a part's admin page, checked on its own."""
    sql = "SELECT max(id) FROM elicitation_part WHERE state = ?"
    [(part_id,)] = live_server.query(sql, (state,))
    page.goto(f"{live_server.url}/admin/elicitation/part/{part_id}/change/")
    if page.locator("#id_username").count():
        page.fill("#id_username", staff)
        page.fill("#id_password", STAFF_PASSWORD)
        page.click("input[type=submit]")
    document = page.locator("iframe.chat-frame").first.get_attribute("srcdoc")
    page.set_content(document)  # same origin: the stylesheet still loads
    return serious_findings(page, f"admin fragment ({state})")


def test_an_option_is_named_by_its_title_and_described_once(page, live_server):
    open_chat(page, live_server, "Schema tester")
    part = ask(page, "Which plan?", EVERY_KIND)
    pro = part.get_by_role("radio", name="Pro", exact=True)
    expect(pro).to_have_accessible_name("Pro")
    expect(pro).to_have_accessible_description("For teams.")
    # A required box is marked like every other required field.
    expect(part.get_by_role("checkbox", name="I agree")).to_have_accessible_name(
        "I agree (required)"
    )


def test_the_theme_toggle_wins_over_the_system_and_is_remembered(page, live_server):
    toggle = page.get_by_role("button", name="Dark theme")
    expect(toggle).to_have_attribute("aria-pressed", "false")  # the system says light
    toggle.click()
    page.reload()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    expect(page.get_by_role("button", name="Dark theme")).to_have_attribute("aria-pressed", "true")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(20, 20, 24)"
    assert not serious_findings(page, "home, dark by the toggle")

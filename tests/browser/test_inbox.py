"""The inbox in a browser: a routed question arrives live, is triaged by keyboard and answered
inline; axe finds nothing serious at 375 px and 1366 px, light and dark."""

import os
import re
import shutil

import pytest
from playwright.sync_api import Page, expect

from tests.browser.axe import serious_findings
from tests.browser.chat import screenshot, socket_open
from tests.browser.conftest import log_in, refused_by_policy, served_copy
from tests.support.live_server import BASE_DIR

SETUP = """
from django.contrib.auth.models import Group, User
from playground.runs.models import Agent, Conversation
managers, _ = Group.objects.get_or_create(name="release-managers")
managers.user_set.add(*User.objects.filter(username__in=["alice", "bob"]))
# Agents as a team would set them up: the release bot's questions go to the release managers
# (its configuration), the deploy bot's approvals must come from one of them.
routing = {"routing": {"questions": ["group:release-managers"]}}
bots = [("release-bot", "Release bot", "test-release-bot", routing),
        ("deploy-bot", "Deploy bot", "test-routed-approval", {})]
for slug, name, kind, config in bots:
    agent, _ = Agent.objects.get_or_create(
        slug=slug, defaults={"name": name, "kind": kind, "config": config}
    )
    owner = User.objects.get(username="alice")
    conversation = Conversation.objects.create(owner=owner, agent=agent)
    print(f"conversation={conversation.pk}")
"""


@pytest.fixture(scope="module")
def live_server(tmp_path_factory, prepared_database):
    with served_copy(
        prepared_database,
        tmp_path_factory.mktemp("inbox"),
        {"AGENT_MODULES": "tests.support.runtime_agents"},
    ) as server:
        yield server


@pytest.fixture(scope="module")
def conversations(live_server) -> list[int]:
    return [
        int(pk)
        for pk in re.findall(r"conversation=(\d+)", live_server.manage("shell", "-c", SETUP))
    ]


def person(browser, server, username: str) -> Page:
    page = browser.new_context(viewport={"width": 1366, "height": 900}).new_page()
    page.set_default_timeout(30_000)
    log_in(page, server, username)
    return page


def alice_asks(page: Page, server, conversation: int, text: str) -> None:
    page.goto(f"{server.url}/c/{conversation}/")
    socket_open(page)
    page.fill("#composer-text", text)
    page.keyboard.press("Enter")
    expect(page.locator("article.part .waiting-for").last).to_contain_text("Waiting for Release")


def test_a_routed_question_arrives_live_and_is_answered_inline(browser, live_server, conversations):
    routed, approval = conversations
    bob = person(browser, live_server, "bob")
    refused = refused_by_policy(bob)
    bob.goto(live_server.url + "/inbox/")
    expect(bob.locator(".inbox-empty")).to_have_text("Nothing is waiting for you.")
    bob.wait_for_function("() => document.querySelector('#inbox-count')?.hidden === true")

    alice = person(browser, live_server, "alice")
    alice_asks(alice, live_server, routed, "Release the mobile app")
    expect(alice.locator("article.part").last).to_contain_text("Waiting for Release managers")
    alice_asks(alice, live_server, approval, "Deploy the API to production")

    # Both arrive in bob's open inbox without a reload, oldest first, and the count follows.
    items = bob.locator("#inbox-list > li")
    expect(items).to_have_count(2)
    expect(items.first).to_contain_text("Which version should I release?")
    expect(items.nth(1)).to_contain_text("Approval")
    expect(items.first.locator(".inbox-meta")).to_contain_text("· asked just now")
    expect(bob.locator(".inbox-empty")).to_be_hidden()
    expect(bob.locator("#inbox-count")).to_have_attribute("data-waiting", "2")
    expect(bob).to_have_title("(2) Inbox · Elicitation playground")

    for width in (375, 1366):
        for scheme in ("light", "dark"):
            bob.set_viewport_size({"width": width, "height": 900})
            bob.emulate_media(color_scheme=scheme)
            bob.evaluate("() => window.scrollTo(0, 0)")
            shot = screenshot(bob, f"inbox-{width}-{scheme}")
            assert serious_findings(bob, f"inbox {width} {scheme}") == []
            if (width, scheme) == (1366, "light") and os.environ.get("README_SCREENSHOTS"):
                shutil.copy(shot, BASE_DIR / "docs/screenshots/inbox.png")
    bob.set_viewport_size({"width": 1366, "height": 900})

    # Keyboard triage: j to the first question, f to its first field, answer it.
    bob.locator("h1").click()
    bob.keyboard.press("j")
    expect(items.first).to_be_focused()
    bob.keyboard.press("f")
    field = items.first.locator("input[name='answer.version']")
    expect(field).to_be_focused()
    field.fill("2.5.0")
    items.first.locator("button[value=accept]").click()
    expect(items.first.locator(".answered-by")).to_contain_text("Answered by bob")
    expect(bob.locator("#inbox-count")).to_have_attribute("data-waiting", "1")
    expect(bob).to_have_title("(1) Inbox · Elicitation playground")
    alice.goto(f"{live_server.url}/c/{routed}/")
    expect(alice.locator("#transcript")).to_contain_text("Releasing 2.5.0.")
    expect(alice.locator("#transcript .answered-by")).to_contain_text("Answered by bob")

    # j moves on, o opens the conversation at the approval, read-only around it.
    bob.keyboard.press("j")
    expect(items.nth(1)).to_be_focused()
    bob.keyboard.press("o")
    bob.wait_for_url(f"**/c/{approval}/#part-*")
    expect(bob.locator(".read-only-note")).to_be_visible()
    expect(bob.locator("#composer")).to_have_count(0)
    screenshot(bob, "inbox-deep-link-1366-dark")
    assert serious_findings(bob, "assignee's read-only conversation") == []
    assert not refused, refused


def test_the_inbox_reads_without_script(browser, live_server, conversations):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    log_in(page, live_server, "bob")
    page.goto(live_server.url + "/inbox/")
    expect(page.locator("#inbox-list > li").first).to_contain_text("Approval")
    expect(page.locator("#inbox-list form[method=post]").first).to_be_visible()
    context.close()

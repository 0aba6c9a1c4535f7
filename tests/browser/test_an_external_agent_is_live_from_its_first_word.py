"""An external agent that speaks or asks first shows up live in every tab open on the chat.

The conversation is empty when the tabs open it: the agent's first call opens its turn, and
the push must bring that turn along, or its words have nowhere to go until a reload.
"""

import json
import urllib.request

from tests.browser.chat import socket_open
from tests.browser.conftest import log_in
from tests.support.api_support import ASK

MAKE_TOKEN = """
from django.contrib.auth.models import User
from playground.api.tokens import create_token
print(create_token(User.objects.get(username="alice"), "browser test")[1])
"""


def call_api(server, key: str, path: str, body: dict) -> dict:
    request = urllib.request.Request(
        f"{server.url}/api/v1{path}",
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def open_on(tab, url: str) -> None:
    tab.set_default_timeout(30_000)
    tab.goto(url)
    socket_open(tab)


def test_the_agents_first_message_and_question_appear_live_in_every_open_tab(
    browser, live_server, page
):
    key = live_server.manage("shell", "-c", MAKE_TOKEN).split()[-1]
    conversation = call_api(live_server, key, "/conversations", {"agentName": "Deploy bot"})
    other = browser.new_context().new_page()
    log_in(other, live_server)
    tabs = [page, other]
    for tab in tabs:
        open_on(tab, conversation["url"])
        assert tab.get_by_text("Say something to Deploy bot to start.").is_visible()

    call_api(live_server, key, f"/conversations/{conversation['id']}/messages", {"text": "Hi!"})
    for tab in tabs:
        tab.locator(".turn .bubble.agent", has_text="Hi!").wait_for()
        assert tab.get_by_text("Say something to Deploy bot to start.").is_hidden()

    call_api(live_server, key, f"/conversations/{conversation['id']}/requests", ASK)
    for tab in tabs:
        question = tab.locator("article.part--pending", has_text=ASK["message"])
        question.locator("form[data-part-form]").wait_for()
        assert tab.locator(".turn").count() == 1  # the question joined the message's turn
    other.context.close()


def test_a_question_as_the_agents_first_word_appears_live(live_server, page):
    key = live_server.manage("shell", "-c", MAKE_TOKEN).split()[-1]
    conversation = call_api(live_server, key, "/conversations", {"agentName": "Deploy bot"})
    open_on(page, conversation["url"])

    call_api(live_server, key, f"/conversations/{conversation['id']}/requests", ASK)
    question = page.locator("article.part--pending", has_text=ASK["message"])
    question.get_by_label("Staging").check()
    question.get_by_role("button", name="Submit").click()
    page.locator("article.part--submitted", has_text="staging").wait_for()

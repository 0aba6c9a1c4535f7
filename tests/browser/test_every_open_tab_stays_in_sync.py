"""Every open tab of a conversation follows it live, and catches up after losing its socket."""

import json

import pytest

from tests.browser.chat import ask, open_chat, send, socket_open
from tests.browser.conftest import log_in

NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def second_tab(browser, server, url: str):
    tab = browser.new_context().new_page()
    log_in(tab, server)
    tab.goto(url)
    socket_open(tab)
    return tab


def test_answering_in_one_tab_turns_the_other_tabs_form_into_the_chip(browser, live_server, page):
    open_chat(page, live_server, "Schema tester")
    ask(page, "What should I call you?", NAME)
    other = second_tab(browser, live_server, page.url)
    other.locator("article.part--pending").get_by_label("Name").fill("typed here, not sent")

    part = page.locator("article.part--pending")
    part.get_by_label("Name").fill("Grace")
    part.get_by_role("button", name="Submit").click()

    chip = other.locator("article.part--submitted")
    chip.wait_for()
    assert "Grace" in chip.inner_text()
    assert other.locator("article.part--pending").count() == 0
    other.locator(".bubble.agent", has_text="I received this envelope").wait_for()
    other.context.close()


# 1012: a proxy restarting (htmx's ws extension retries it); 4012: a web process that lost
# Redis (playground/server/socket_watch.py; static/playground.js retries it).
@pytest.mark.parametrize("code", [1012, 4012])
def test_a_tab_that_lost_its_socket_catches_up_and_keeps_what_was_typed(
    browser, live_server, page, code
):
    # Route this tab's socket through the test, so the test can cut it like a flaky network.
    cut = {"now": False, "sockets": []}

    def through(route):
        server = route.connect_to_server()
        server.on_message(lambda message: None if cut["now"] else route.send(message))
        cut["sockets"].append(route)

    page.route_web_socket("**/ws/c/**", through)
    open_chat(page, live_server, "Schema tester")
    ask(page, "What should I call you?", NAME)
    page.locator("article.part--pending").get_by_label("Name").fill("half-typed")

    cut["now"] = True  # pushes stop reaching this tab...
    other = second_tab(browser, live_server, page.url)
    send(other, json.dumps({"message": "Which city?", "requestedSchema": CITY}))
    other.locator("article.part--pending", has_text="Which city?").wait_for()
    assert page.locator("text=Which city?").count() == 0  # ...so it missed the new question

    # Count the drop as it happens: the tab may reconnect within milliseconds (htmx's jittered
    # retry for 1012), too briefly for a wait on the "closed" state to be sure to see it.
    page.evaluate("""() => { window.drops = 0;
        document.addEventListener("htmx:wsClose", () => { window.drops += 1; }); }""")
    cut["now"] = False
    cut["sockets"][-1].close(code=code, reason="restart")  # the socket drops
    page.wait_for_function("() => window.drops >= 1")
    socket_open(page)  # htmx reconnects; the consumer sends the conversation again

    page.locator("article.part--pending", has_text="Which city?").wait_for()
    first = page.locator("article.part--pending", has_text="What should I call you?")
    assert first.get_by_label("Name").input_value() == "half-typed"
    assert page.locator("#status").get_attribute("data-waiting") == "2"
    assert page.title().startswith("(2) ")
    other.context.close()


def test_a_late_push_of_the_question_does_not_bring_an_answered_form_back(live_server, page):
    sockets = []

    def through(route):
        route.connect_to_server()  # everything passes both ways
        sockets.append(route)

    page.route_web_socket("**/ws/c/**", through)
    open_chat(page, live_server, "Schema tester")
    part = ask(page, "What should I call you?", NAME)
    items = part.evaluate("element => element.parentElement.closest('[id]').id")
    pushed_as = f'<div hx-swap-oob="beforeend:#{items}">{part.evaluate("e => e.outerHTML")}</div>'
    part.get_by_label("Name").fill("Grace")
    part.get_by_role("button", name="Submit").click()
    page.locator("article.part--submitted").wait_for()

    page.evaluate("""() => { window.handled = 0;
        document.addEventListener("htmx:wsAfterMessage", () => { window.handled += 1; }); }""")
    sockets[-1].send(pushed_as)  # the question's own push, arriving after the answer
    page.wait_for_function("() => window.handled >= 1")

    assert page.locator("article.part--pending").count() == 0
    assert "Grace" in page.locator("article.part--submitted").inner_text()

"""Pushes reach other tabs at once, not when the server's loop happens to wake up.

With the in-memory channel layer, a `group_send` made from a thread the server did not start
waits for the loop's next wake-up (about a second on an idle daphne). Pushes are handed to
the loop instead; this test fails if the other tab sees the answer late.
"""

from tests.browser.conftest import log_in

LATE_MS = 500  # well under the ~1 s an idle loop takes to notice a foreign-thread send


def test_an_answer_in_one_tab_reaches_the_other_tab_at_once(browser, live_server, page):
    page.click("text=Chat with Deploy assistant")
    page.wait_for_url("**/c/*/")
    page.fill("#composer-text", "deploy")
    page.keyboard.press("Enter")
    page.wait_for_selector(".part--pending")

    other = browser.new_context().new_page()
    log_in(other, live_server)
    other.goto(page.url)
    other.wait_for_selector(".part--pending")
    other.wait_for_function("() => document.querySelector('[ws-connect]') && window.htmx")
    # The websocket is open once the resync sent on connect has been applied.
    other.wait_for_selector("#status[data-waiting='1']")

    page.check("text=Staging")
    with page.expect_response("**/settle"):
        page.click("button:has-text('Submit')")
    other.wait_for_selector(".part--submitted", timeout=LATE_MS)
    assert "Staging" in other.inner_text(".part--submitted")
    other.context.close()

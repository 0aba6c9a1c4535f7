"""An operator cancels a waiting question in the admin; the person's open chat updates live."""

from playwright.sync_api import expect

from tests.browser.chat import open_chat, screenshot, send
from tests.support.admin_support import PASSWORD


def test_cancelling_in_the_admin_updates_the_open_chat(page, browser, live_server):
    live_server.manage(
        "shell",
        "-c",
        "from tests.support.admin_support import PASSWORD, make_staff\n"
        "make_staff('operator-olga', superuser=True, password=PASSWORD)",
    )
    open_chat(page, live_server, "Deploy assistant")
    send(page, "Deploy the new search page")
    question = page.locator("article.part--pending")
    expect(question).to_contain_text("Which environment should I deploy to?")

    context = browser.new_context()
    admin = context.new_page()
    admin.goto(live_server.url + "/admin/elicitation/part/?state__exact=pending")
    admin.fill("#id_username", "operator-olga")
    admin.fill("#id_password", PASSWORD)
    admin.click("input[type=submit]")
    row = admin.locator("#result_list tbody tr").filter(has_text="Deploy the new search page")
    row.locator("input.action-select").check()
    admin.select_option("select[name=action]", "cancel_pending")
    admin.get_by_role("button", name="Run").click()
    expect(admin.locator(".messagelist")).to_contain_text("Cancelled 1 pending question")
    context.close()

    # No reload: the chip and the agent's reply arrive over the socket.
    expect(page.locator("article.part--cancelled")).to_contain_text("Cancelled")
    expect(page.locator("article.part--cancelled")).to_contain_text("operator-olga")
    expect(page.locator(".bubble.agent:not(.live)").last).to_have_text(
        "Okay, nothing was deployed."
    )
    screenshot(page, "admin-cancel-seen-in-chat")

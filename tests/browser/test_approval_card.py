"""Before an irreversible action the agent shows an approval card that says what will happen."""

from tests.browser.chat import open_chat, send


def start_deploy(page, server, environment: str):
    open_chat(page, server, "Deploy assistant")
    send(page, "Ship it")
    question = page.locator("article.part--pending")
    question.get_by_label(environment).check()
    question.get_by_role("button", name="Submit").click()
    card = page.locator("article.part--approval.part--pending")
    card.wait_for()
    return card


def test_approving_for_the_conversation_deploys_and_says_so(page, live_server):
    card = start_deploy(page, live_server, "Production")
    text = card.inner_text()
    assert "Deploy assistant asks for your approval" in text
    assert "Deploy version main of the web app to Production?" in text
    assert "This replaces what is running there now." in text
    assert "Environment" in text and "Service" in text

    card.get_by_role("button", name="Approve for this conversation").click()
    page.locator(".bubble.agent", has_text="Deployed").wait_for()
    chip = page.locator("article.part--approval")
    assert "Approved for this conversation" in chip.inner_text()


def test_denying_deploys_nothing(page, live_server):
    card = start_deploy(page, live_server, "Staging")
    card.get_by_role("button", name="Deny").click()
    page.locator(".bubble.agent", has_text="Deployment to Staging cancelled").wait_for()
    assert "Denied" in page.locator("article.part--approval").inner_text()

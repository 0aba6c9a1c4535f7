"""Notifications in Chromium: a question asked in a conversation nobody has open shows a browser
notification in the person's other tab and is emailed; the email's link opens the question with
its first field focused. The settings page at phone and laptop widths, light and dark, axe."""

import html
import os
import re

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.axe import serious_findings
from tests.browser.chat import ARTIFACTS, open_chat, screenshot
from tests.browser.conftest import log_in, served_copy
from tests.support.live_server import BASE_DIR, LiveServer, wait_for
from tests.support.smtp_support import SmtpServer, text_of

NEW_TOKEN = (
    "from django.contrib.auth.models import User\n"
    "from playground.api.tokens import create_token\n"
    "print(create_token(User.objects.get(username='alice'), 'notify test')[1])\n"
)
SCHEMA = {"type": "object", "properties": {"region": {"type": "string", "title": "Region"}}}
# Records each notification the page shows, then shows it as Chromium would.
RECORD_NOTIFICATIONS = """
window.__shown = [];
const Real = window.Notification;
window.Notification = class extends Real {
  constructor(title, options) { super(title, options); window.__shown.push({ title, ...options }); }
};
"""


@pytest.fixture(scope="module")
def smtp():
    server = SmtpServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def live_server(tmp_path_factory, prepared_database, smtp):
    workdir = tmp_path_factory.mktemp("notify")
    env = {
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(smtp.port),
        "NOTIFY_AFTER_SECONDS": "1",
        "NOTIFY_BATCH_SECONDS": "0",
        "RECOVERY_SWEEP_SECONDS": "0.5",
    }

    def before_start(server: LiveServer) -> None:
        server.env["SITE_URL"] = server.url
        server.manage(
            "shell",
            "-c",
            "from django.contrib.auth.models import User\n"
            "User.objects.filter(username='alice').update(email='alice@example.com')\n",
        )

    with served_copy(prepared_database, workdir, env, before_start) as server:
        yield server


def test_a_question_elsewhere_notifies_the_other_tab_and_its_email_links_to_it(
    browser, live_server, smtp
):
    context = browser.new_context()
    context.grant_permissions(["notifications"], origin=live_server.url)
    context.add_init_script(RECORD_NOTIFICATIONS)
    page = context.new_page()
    log_in(page, live_server)
    open_chat(page, live_server, "Schema tester")  # the person's one tab, on another chat
    # An external agent asks meanwhile, in a conversation no tab shows (a question asked in a
    # tab that then navigates away may fall due before the server sees that tab close).
    key = live_server.manage("shell", "-c", NEW_TOKEN).split()[-1]
    headers = {"Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=live_server.url + "/api/v1", headers=headers) as api:
        conversation = api.post("/conversations", json={"agentName": "Cluster bot"}).json()
        question = {"message": "Which region should the new cluster run in?"}
        asked = api.post(
            f"/conversations/{conversation['id']}/requests",
            json={**question, "requestedSchema": SCHEMA},
        )
    part_id = f"part-{asked.json()['id']}"

    page.wait_for_function("() => window.__shown.length > 0", timeout=30_000)
    [shown] = page.evaluate("() => window.__shown")
    assert shown["title"] == "Cluster bot asks: Which region should the new cluster run in?"
    assert shown["body"] == "Which region should the new cluster run in?"
    wait_for(lambda: smtp.mails, timeout=30, message="no email")
    [mail] = smtp.mails
    link = re.search(r"Answer it: (\S+)", text_of(mail)).group(1)
    assert link.endswith(f"/q/{asked.json()['id']}/")  # it opens the conversation at the question
    look_at_the_mail(browser, mail)

    page.goto(link)
    question = page.locator(f"#{part_id}")
    expect(question).to_be_in_viewport()
    expect(question.get_by_label("Region")).to_be_focused()
    context.close()


def look_at_the_mail(browser, mail) -> None:
    """Show the mail the SMTP server received as a mail client shows plain text
    (README_SCREENSHOTS=1 saves it for the README)."""
    docs = BASE_DIR / "docs/screenshots" if os.environ.get("README_SCREENSHOTS") else ARTIFACTS
    headers = "".join(
        f"<div><b>{name}:</b> {html.escape(str(mail[name]))}</div>"
        for name in ("From", "To", "Subject")
    )
    page = browser.new_page(viewport={"width": 760, "height": 400})
    page.set_content(
        "<body style='font: 15px system-ui; margin: 0; padding: 16px; background: #fff'>"
        f"<div style='border-bottom: 1px solid #ccc; padding-bottom: 8px'>{headers}</div>"
        f"<pre style='font: 14px ui-monospace, monospace; white-space: pre-wrap'>"
        f"{html.escape(text_of(mail))}</pre></body>"
    )
    docs.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=docs / "email.png", full_page=True)
    page.close()


@pytest.mark.parametrize(
    ("scheme", "width"), [("light", 375), ("dark", 375), ("light", 1366), ("dark", 1366)]
)
def test_the_settings_page_fits_and_has_no_serious_accessibility_finding(
    browser, live_server, scheme, width
):
    context = browser.new_context(color_scheme=scheme, viewport={"width": width, "height": 900})
    page = context.new_page()
    log_in(page, live_server)
    page.goto(live_server.url + "/settings/notifications")
    page.get_by_label("Quiet from").fill("22:00")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("alert")).to_have_text(
        "Give quiet hours both a start and an end, or neither."
    )
    expect(page.get_by_label("Quiet from")).to_have_value("22:00")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    screenshot(page, f"notify-settings-{scheme}-{width}")
    assert serious_findings(page, f"notification settings {scheme} {width}") == []
    context.close()

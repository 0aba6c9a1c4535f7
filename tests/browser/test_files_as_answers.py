"""Files as answers in the browser: the picker with its limits, progress, refusal, the chip's
preview, reload, and two tabs answering at once."""

import io
import json
import os

import pytest
from PIL import Image
from playwright.sync_api import expect

from tests.browser.axe import serious_findings
from tests.browser.chat import ask, last_envelope, open_chat, screenshot, socket_open
from tests.browser.conftest import log_in
from tests.support.runtime_agents import FILES

LOG = b"ERROR deploy failed at step 3\n"
LOOKS = {
    "phone": ("light", 375),
    "phone-dark": ("dark", 375),
    "wide": ("light", 1366),
    "wide-dark": ("dark", 1366),
}


def png(width: int, height: int, noisy: bool = False) -> bytes:
    image = Image.new("RGB", (width, height), (40, 120, 200))
    if noisy:  # incompressible: a big file to watch upload
        image = Image.frombytes("RGB", (width, height), os.urandom(width * height * 3))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def picked(name: str, content: bytes, mime: str = "text/plain") -> dict:
    return {"name": name, "mimeType": mime, "buffer": content}


def stored(server) -> list[str]:
    root = server.workdir / "files"
    return sorted(path.name for path in root.iterdir()) if root.exists() else []


def test_refusal_progress_and_the_chip_with_a_preview_after_a_reload(page, live_server):
    open_chat(page, live_server, "Schema tester")
    part = ask(page, "Attach the failing log and a screenshot.", FILES)
    expect(part.get_by_text("Up to 2 KB. Text files only.")).to_be_visible()
    expect(
        part.get_by_text("Attach at most 2 files. Each file up to 10 MB. Images only.")
    ).to_be_visible()
    submit = part.get_by_role("button", name="Submit")
    assert submit.is_disabled()  # the log is required

    # Over the limit: said at once, nothing chosen, nothing sent.
    log = part.get_by_label("Failing log")
    log.set_input_files([picked("huge.log", b"x" * 5000)])
    expect(
        part.get_by_text("huge.log is 5 KB; the limit is 2 KB. Choose a smaller file.")
    ).to_be_visible()
    assert log.input_value() == ""

    # A log that is an image by its content: refused by the server next to the field.
    part.get_by_label("Ticket").fill("OPS-7")
    log.set_input_files([picked("run.log", png(20, 20))])
    part.get_by_label("Screenshots").set_input_files(
        [picked("screen.png", png(900, 600), "image/png")]
    )
    submit.click()
    part.locator(".field--invalid").wait_for()
    assert (
        "This file's content is image/png; choose a file of type text/plain." in part.inner_text()
    )
    assert part.get_by_label("Ticket").input_value() == "OPS-7"
    keep = part.get_by_label("Keep screen.png")
    assert keep.is_checked()  # the good screenshot is kept, not sent again
    screenshot(part, "files-refused-wide")
    assert not serious_findings(page, "file field refused")

    # A big screenshot shows its upload's progress.
    page.evaluate(
        """() => { window.uploadProgress = [];
        document.addEventListener("htmx:xhr:progress", () => {
          const status = document.querySelector("[data-upload-status]");
          if (status && !status.hidden)
            window.uploadProgress.push(status.querySelector("progress").value);
        }); }"""
    )
    part.get_by_label("Failing log").set_input_files([picked("run.log", LOG)])
    big = png(1400, 1000, noisy=True)
    assert len(big) > 4_000_000
    part.get_by_label("Screenshots").set_input_files([picked("big.png", big, "image/png")])
    part.get_by_role("button", name="Submit").click()
    chip = page.locator("article.part--submitted")
    chip.wait_for()
    progress = page.evaluate("() => window.uploadProgress")
    assert progress and max(progress) == 100, progress

    envelope = last_envelope(page)
    content = envelope["content"]
    assert content["log"]["name"] == "run.log" and content["log"]["size"] == len(LOG)
    assert [item["name"] for item in content["screenshots"]] == ["screen.png", "big.png"]
    assert "base64" not in json.dumps(envelope)
    previews = chip.locator("img.file-preview")
    expect(previews).to_have_count(2)
    previews.first.evaluate("img => img.decode()")
    assert previews.first.evaluate("img => img.naturalWidth") == 480
    expect(chip.get_by_role("link", name="run.log")).to_have_attribute("download", "")

    page.reload()
    socket_open(page)
    chip = page.locator("article.part--submitted")
    expect(chip.locator("img.file-preview")).to_have_count(2)
    expect(chip.get_by_role("link", name="big.png")).to_be_visible()
    assert not serious_findings(page, "file chip")


@pytest.mark.parametrize("look", list(LOOKS))
def test_the_file_field_and_its_chip_in_each_look(browser, live_server, look):
    scheme, width = LOOKS[look]
    context = browser.new_context(color_scheme=scheme, viewport={"width": width, "height": 900})
    page = context.new_page()
    log_in(page, live_server)
    open_chat(page, live_server, "Schema tester")
    part = ask(page, "Attach the failing log and a screenshot.", FILES)
    screenshot(part, f"files-form-{look}")
    part.get_by_label("Failing log").set_input_files([picked("run-1412.log", LOG)])
    part.get_by_label("Screenshots").set_input_files(
        [picked("screen.png", png(900, 600), "image/png")]
    )
    part.get_by_role("button", name="Submit").click()
    chip = page.locator("article.part--submitted")
    chip.locator("img.file-preview").evaluate("img => img.decode()")
    screenshot(chip, f"files-chip-{look}")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert not serious_findings(page, f"files {look}")
    context.close()


def test_two_tabs_answering_one_wins_and_the_losers_upload_is_removed(browser, live_server, page):
    open_chat(page, live_server, "Schema tester")
    before = stored(live_server)
    part = ask(page, "Attach the failing log.", FILES)
    other = browser.new_context().new_page()
    log_in(other, live_server)
    # The second tab has no socket, so its form stays up when the first tab answers.
    other.route_web_socket("**/ws/c/**", lambda socket: socket.close())
    other.goto(page.url)
    theirs = other.locator("article.part--pending").last
    theirs.get_by_label("Failing log").set_input_files([picked("second.log", b"second tab\n")])
    part.get_by_label("Failing log").set_input_files([picked("first.log", LOG)])
    part.get_by_role("button", name="Submit").click()
    page.locator("article.part--submitted").last.wait_for()
    theirs.get_by_role("button", name="Submit").click()
    expect(other.get_by_text("This question was already answered")).to_be_visible()
    added = [name for name in stored(live_server) if name not in before]
    assert len(added) == 1, added  # first.log only: the second tab's upload is gone
    other.context.close()

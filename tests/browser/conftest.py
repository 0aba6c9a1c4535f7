"""Browser tests: Playwright drives Debian's Chromium against a live daphne server."""

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Page, sync_playwright

from tests.browser import chromium
from tests.support.live_server import LiveServer

USERS = {"alice": "alice-password-1", "bob": "bob-password-1"}


# Per module: Playwright's sync API keeps an event loop running in this thread while it is
# open, and Django refuses database calls from a thread with a running loop.
@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium.executable(), args=chromium.FLAGS
        )
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def prepared_database(tmp_path_factory) -> Path:
    """Migrate, seed and add the users once; each module's server starts from a copy."""
    template = LiveServer(tmp_path_factory.mktemp("template"))
    template.prepare(USERS)
    return template.db_path


@contextmanager
def served_copy(
    prepared_database: Path,
    workdir: Path,
    env: dict[str, str] | None = None,
    before_start: Callable[[LiveServer], object] = lambda server: None,
) -> Iterator[LiveServer]:
    """A daphne server on a copy of the prepared database, stopped when the block ends.

    `before_start` runs on the copy first (a management command, an environment variable
    that needs the server's URL)."""
    server = LiveServer(workdir, env=env)
    # The backup API copies a consistent database, whatever is still in the WAL file.
    with sqlite3.connect(prepared_database) as source, sqlite3.connect(server.db_path) as copy:
        source.backup(copy)
    before_start(server)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def live_server(tmp_path_factory, prepared_database):
    with served_copy(prepared_database, tmp_path_factory.mktemp("live")) as server:
        yield server


# Each person's cookies on each server from their last log-in through the form. A fresh context
# that logs in again starts from them: one page load instead of the form, its POST and the
# password's hash, about a second of a loaded machine's CPU for each test.
_signed_in: dict[tuple[str, str], list] = {}


def log_in(
    page: Page, server: LiveServer, username: str = "alice", *, through_the_form: bool = False
) -> None:
    """Have `page`'s context logged in as `username`, on the home page. Its session is the
    person's last one on this server unless that has ended (a logout) or `through_the_form`."""
    key = (server.url, username)
    if key in _signed_in and not through_the_form:
        page.context.add_cookies(_signed_in[key])
        page.goto(server.url + "/")
        if "/accounts/login/" not in page.url:
            return
    page.goto(server.url + "/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", USERS[username])
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)
    _signed_in[key] = page.context.cookies(server.url)
    if page.url != server.url + "/":
        page.goto(server.url + "/")


def refused_by_policy(page: Page) -> list[str]:
    """Collect what the page's Content-Security-Policy refuses, as Chromium reports it."""
    refused: list[str] = []
    page.on(
        "console",
        lambda message: "Content Security Policy" in message.text and refused.append(message.text),
    )
    return refused


@pytest.fixture
def page(browser, live_server):
    # Give `wait_for_function` an arrow function, never a bare expression: Playwright re-evals a
    # bare expression on every frame, and the page's CSP (no 'unsafe-eval') refuses that as soon
    # as the first check was false. A function is eval'd once, inside Playwright's own evaluate.
    context = browser.new_context()
    page = context.new_page()
    refused = refused_by_policy(page)
    log_in(page, live_server)
    yield page
    context.close()
    # Every chat test also checks that nothing it did needed an exception to the policy.
    assert not refused, refused


@pytest.fixture(autouse=True)
def _live_server_helper():
    """Replace pytest-django's hook for its own `live_server`: ours is a daphne subprocess."""
    yield

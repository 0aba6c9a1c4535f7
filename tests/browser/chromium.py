"""Debian's Chromium as the browser tests and bench/answer_latency.py launch it."""

import shutil

FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def executable() -> str:
    """Return the path of Debian's chromium; fail with what to install if there is none."""
    found = shutil.which("chromium")
    assert found, "Browser tests need Debian's chromium: apt-get install chromium"
    return found

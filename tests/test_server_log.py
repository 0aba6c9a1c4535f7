"""The server's log is plain lines, whichever library logs: one line a message, and a logged
error's traceback as Python prints it."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Django set up as the server does, the MCP server built (its SDK would take over the root
# logger if it had no handler), then a library's error with its traceback.
SCRIPT = """
import logging
import django
django.setup()
import playground.mcp_server.server
try:
    raise ConnectionError("Error 111 connecting to 127.0.0.1:6379")
except ConnectionError:
    logging.getLogger("channels_redis.pubsub").exception("Unexpected exception in receive task")
"""


def test_a_library_s_error_is_logged_as_plain_lines_with_the_mcp_server_built():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "playground.settings"}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    at = lines.index("Unexpected exception in receive task")
    assert lines[at + 1] == "Traceback (most recent call last):"
    assert lines[-1] == "ConnectionError: Error 111 connecting to 127.0.0.1:6379"
    assert not any("│" in line or "╭" in line for line in lines)  # no boxed, rendered page

"""The vault under test: keys, a services file, and a local service to check credentials
against (an HTTP server that accepts one bearer token)."""

import base64
import hashlib
import io
import logging
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection

GOOD_TOKEN = "tok-correct-horse-battery-7c41e9"
WRONG_TOKEN = "tok-wrong-staple-0b2d55"


def new_key() -> str:
    return base64.urlsafe_b64encode(os.urandom(32)).decode()


def digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


class QuietHandler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass


class LocalServer:
    """An HTTP server on a free local port, answering with `handler` in threads of its own."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]):
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class DemoService(LocalServer):
    """A service whose /user (and /user/repos: two) answers `Bearer GOOD_TOKEN`, 401 to anything
    else."""

    def __init__(self):
        self.requests: list[str] = []  # the paths asked for
        seen = self.requests

        class Handler(QuietHandler):
            def do_GET(self):
                seen.append(self.path)
                good = self.headers.get("Authorization") == f"Bearer {GOOD_TOKEN}"
                self.send_response(200 if good else 401)
                self.end_headers()
                repos = b'[{"name": "one"}, {"name": "two"}]'
                found = repos if self.path == "/user/repos" else b'{"login": "alice"}'
                self.wfile.write(found if good else b"{}")

        super().__init__(Handler)


def services_file(directory: Path, test_url: str = "") -> Path:
    """Write a services file declaring `demo` (a token and an optional base URL)."""
    path = directory / "services.toml"
    test = f'test = {{ url = "{test_url}/user" }}\n' if test_url else ""
    path.write_text(
        "[services.demo]\n"
        'title = "Demo"\n'
        "fields = [\n"
        '  { name = "token", title = "Access token" },\n'
        '  { name = "region", title = "Region", secret = false, required = false, '
        'default = "eu" },\n'
        "]\n"
        'headers = { Authorization = "Bearer {token}" }\n'
        'env = { MCP_TEST_TOKEN = "{token}" }\n' + test
    )
    return path


@pytest.fixture
def demo(request, settings, tmp_path) -> DemoService:
    """The vault with a key, and the `demo` service declared, checked against a DemoService."""
    service = DemoService()
    request.addfinalizer(service.stop)
    settings.CONNECTIONS_KEYS = [new_key()]
    settings.CONNECTION_SERVICES_FILE = str(services_file(tmp_path, service.url))
    return service


def everything_stored() -> str:
    """Return every row of every table, as dumpdata writes them."""
    out = io.StringIO()
    call_command("dumpdata", stdout=out)
    return out.getvalue()


def raw_database() -> bytes:
    """Return the test database's bytes as they lie on disk (the file and its WAL)."""
    name = Path(connection.settings_dict["NAME"])
    return b"".join(p.read_bytes() for p in (name, Path(f"{name}-wal")) if p.exists())


def capture_logs(caplog) -> None:
    """Capture every log record, also from the loggers that do not propagate."""
    caplog.set_level(logging.DEBUG)
    logging.getLogger("playground").addHandler(caplog.handler)

"""OAuth under test: the SDK-built MCP server with its own authorization server
(tests/support/mcp_oauth_server.py) in a process of its own, and the person's part at the provider
(following its authorization URL to the redirect back, as a browser would)."""

import http.client
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx

from tests.support.live_server import free_port, wait_until_listening

SERVER = Path(__file__).parent / "mcp_oauth_server.py"
CLIENT_ID = "playground-test-client"
CLIENT_SECRET = "cs-test-7d1f0e3b9a"


class OAuthTestServer:
    def __init__(
        self, *extra: str, redirect_uri: str = "http://testserver/connections/oauth/callback"
    ):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.mcp_url = f"{self.url}/mcp"
        env = os.environ | {
            "TEST_CLIENT_ID": CLIENT_ID,
            "TEST_CLIENT_SECRET": CLIENT_SECRET,
            "TEST_REDIRECT_URI": redirect_uri,
        }
        self.process = subprocess.Popen(
            [sys.executable, str(SERVER), str(self.port), *extra],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_until_listening(self.process, self._listening, "the OAuth test server")

    def _listening(self) -> bool:
        try:
            return httpx.get(f"{self.url}/test/stats", timeout=10).status_code == 200
        except httpx.HTTPError:
            return False

    def stats(self) -> dict:
        return httpx.get(f"{self.url}/test/stats", timeout=10).json()

    def revoke_all(self) -> None:
        httpx.post(f"{self.url}/test/revoke-all", timeout=10).raise_for_status()

    def expire_access_tokens(self) -> None:
        httpx.post(f"{self.url}/test/expire-access", timeout=10).raise_for_status()

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()


def sign_in_at_provider(authorization_url: str) -> str:
    """Visit the provider's authorization URL; return where it sends the person back (the
    callback URL with `code` and `state`, or `error`)."""
    # (http.client logs nothing: the log scans look for what the playground itself logs.)
    parts = urlsplit(authorization_url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        connection.request("GET", f"{parts.path}?{parts.query}")
        response = connection.getresponse()
        assert response.status in (302, 303, 307), response.read()
        return response.getheader("location")
    finally:
        connection.close()


def callback_path(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


def query(url: str) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(urlsplit(url).query).items()}


def services_file(directory: Path, server: OAuthTestServer, *, configured: bool = False) -> Path:
    """Declare `notes` (the MCP server, found from its protected-resource metadata and
    registering us dynamically) and `calendar` (the same provider with a declared client)."""
    path = directory / "services.toml"
    path.write_text(
        "[services.notes]\n"
        'title = "Notes"\n'
        f'oauth = {{ resource = "{server.mcp_url}" }}\n'
        "[services.calendar]\n"
        'title = "Calendar"\n'
        f'oauth = {{ issuer = "{server.url}", client_id = "{CLIENT_ID}", '
        'client_secret_env = "CALENDAR_CLIENT_SECRET" }\n'
    )
    return path

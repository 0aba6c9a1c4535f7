"""A real OpenID provider for the sign-on tests: node's certified `oidc-provider`, the version
pinned in tests/support/oidc_provider/package-lock.json, installed once into a cache outside the
repository (keyed by the lock), configured by tests/support/oidc_provider/server.mjs and started on
127.0.0.1. Without node and npm the tests that need it are skipped, saying so.

The person's part at the provider is played over HTTP by `sign_in_at_provider` (its login
form, as a browser would post it) or by a real Chromium in the browser tests.
"""

import fcntl
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import httpx
import pytest

from tests.support.live_server import free_port, wait_until_listening

SOURCE = Path(__file__).parent / "oidc_provider"
SIGN_ON_PAGE = Path(__file__).resolve().parents[2] / "docs" / "sign-on.md"
CLIENT_ID = "playground"
CLIENT_SECRET = "test-client-secret-5b7e"
SECRET_ENV = "TEST_OIDC_CLIENT_SECRET"
ACCOUNTS = {
    "ada": {
        "sub": "7f3a-ada",
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "email_verified": True,
        "groups": ["release-managers", "playground-users"],
    },
    "grace": {
        "sub": "7f3a-grace",
        "name": "Grace Hopper",
        "email": "grace@example.com",
        "email_verified": True,
        "groups": ["release-managers", "playground-users", "playground-admins"],
    },
    "mallory": {
        "sub": "7f3a-mallory",
        "name": "Mallory",
        "email": "mallory@example.com",
        "email_verified": True,
        "groups": ["contractors"],
    },
    "eve": {
        "sub": "7f3a-eve",
        "name": "Eve",
        "email": "eve@example.com",
        "email_verified": False,
        "groups": ["playground-users"],
    },
    "frank": {  # some providers send it as a string
        "sub": "7f3a-frank",
        "name": "Frank",
        "email": "frank@example.com",
        "email_verified": "false",
        "groups": ["playground-users"],
    },
}


def readme_example(number: int) -> dict[str, str]:
    """Return the settings of the `number`th sh block of docs/sign-on.md, as a shell
    reads them."""
    section = SIGN_ON_PAGE.read_text()
    block = re.findall(r"```sh\n(.*?)```", section, re.S)[number]
    return dict(word.split("=", 1) for word in shlex.split(block))


def node_modules() -> Path:
    """Return the folder the pinned provider is installed in (installing it the first time)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        pytest.skip("The sign-on tests need node and npm (for node's oidc-provider)")
    lock = (SOURCE / "package-lock.json").read_bytes() + (SOURCE / "package.json").read_bytes()
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    folder = cache / "playground-tests" / f"oidc-provider-{hashlib.sha256(lock).hexdigest()[:16]}"
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / "install.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # parallel workers install it once
        if not (folder / "node_modules" / "oidc-provider").exists():
            staging = Path(tempfile.mkdtemp(dir=folder.parent))
            for name in ("package.json", "package-lock.json"):
                shutil.copy(SOURCE / name, staging / name)
            subprocess.run(
                [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"],
                cwd=staging,
                check=True,
                capture_output=True,
                timeout=300,
            )
            shutil.rmtree(folder, ignore_errors=True)
            staging.rename(folder)
    return folder


class OIDCProvider:
    """oidc-provider on a free port of 127.0.0.1, its client registered for `site`."""

    def __init__(self, site: str, port: int | None = None):
        folder = node_modules()
        shutil.copy(SOURCE / "server.mjs", folder / "server.mjs")  # imports its node_modules
        self.port = port or free_port()
        self.issuer = f"http://127.0.0.1:{self.port}"
        client = {
            "client_id": CLIENT_ID,
            "client_secret": CLIENT_SECRET,
            "redirect_uris": [f"{site}/accounts/oidc/callback/"],
            "post_logout_redirect_uris": [f"{site}/accounts/login/"],
        }
        env = os.environ | {
            "OIDC_TEST_CLIENT": json.dumps(client),
            "OIDC_TEST_ACCOUNTS": json.dumps(ACCOUNTS),
        }
        self.process = subprocess.Popen(
            [shutil.which("node"), "server.mjs", str(self.port)],
            cwd=folder,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_until_listening(self.process, self._listening, "the OpenID provider")

    def _listening(self) -> bool:
        try:
            url = f"{self.issuer}/.well-known/openid-configuration"
            return httpx.get(url, timeout=5).status_code == 200
        except httpx.HTTPError:
            return False

    def settings(self) -> dict[str, str]:
        return self.settings_for(self.issuer)

    @staticmethod
    def settings_for(issuer: str) -> dict[str, str]:
        """The playground's environment for the provider at `issuer` (the docs' example)."""
        return {
            "OIDC_ISSUER": issuer,
            "OIDC_CLIENT_ID": CLIENT_ID,
            "OIDC_CLIENT_SECRET_ENV": SECRET_ENV,
            SECRET_ENV: CLIENT_SECRET,
            "OIDC_PROVIDER_NAME": "Example SSO",
            "OIDC_SCOPES": "openid,email,profile",
        }

    def tamper(self, mode: str) -> None:
        """Make the ID tokens it issues wrong in one way (`nonce`, `signature`, `issuer`,
        `audience`, `expired`); "" makes them right again."""
        httpx.post(f"{self.issuer}/test/tamper", params={"mode": mode}).raise_for_status()

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()


class _Forms(HTMLParser):
    def __init__(self):
        super().__init__()
        self.actions: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "form":
            self.actions.append(dict(attrs).get("action", ""))


def _follow(browser: httpx.Client, response: httpx.Response, provider: str):
    """Follow redirects within the provider; return (its page, None) or (None, the URL it
    sends the person to elsewhere)."""
    while response.is_redirect:
        location = urljoin(str(response.url), response.headers["location"])
        if urlsplit(location).netloc != provider:
            return None, location
        response = browser.get(location)
    return response, None


def sign_in_at_provider(authorization_url: str, login: str, *, cancel: bool = False) -> str:
    """Do what the person does at the provider: open its page, give a login name (or cancel);
    return where it sends them back (our callback URL with `code` and `state`, or `error`)."""
    provider = urlsplit(authorization_url).netloc
    with httpx.Client(timeout=10) as browser:
        page, elsewhere = _follow(browser, browser.get(authorization_url), provider)
        if elsewhere:
            return elsewhere
        forms = _Forms()
        forms.feed(page.text)
        action = next(a for a in forms.actions if a.endswith("/abort" if cancel else "/login"))
        sent = browser.post(urljoin(str(page.url), action), data={"login": login})
        page, elsewhere = _follow(browser, sent, provider)
    assert elsewhere, f"the provider did not send the person back: {page.text[:300]}"
    return elsewhere

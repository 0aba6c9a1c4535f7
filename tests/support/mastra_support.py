"""The docs' Mastra example (docs/examples/mastra) for tests: its packages installed once with
`npm ci` into a cache outside the repo, keyed by the package files' hash, and its server run as
written (`node server.mjs`) in a directory of its own, its model the suite's fake OpenAI server.

Tests that need it skip, saying why, only where Node or npm is missing.
"""

import fcntl
import hashlib
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.support.live_server import BASE_DIR, free_port, wait_until_listening

EXAMPLE = BASE_DIR / "docs" / "examples" / "mastra"
PACKAGE_FILES = ("package.json", "package-lock.json", ".npmrc")


def installed() -> Path:
    """Return the example's node_modules, installed with `npm ci` at the first call for these
    package files (one process installs, the others wait on a lock); skip without Node or npm."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"the Mastra example needs Node.js and npm: {' and '.join(missing)} not found")
    digest = hashlib.sha256()
    for name in PACKAGE_FILES:
        digest.update((EXAMPLE / name).read_bytes())
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "playground-tests"
    cache.mkdir(parents=True, exist_ok=True)
    target = cache / f"mastra-{digest.hexdigest()[:16]}"
    with open(cache / "mastra.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not target.exists():
            _install(cache, target)
    return target / "node_modules"


def _install(cache: Path, target: Path) -> None:
    """Install into a fresh directory, renamed into place only once complete."""
    work = Path(tempfile.mkdtemp(dir=cache, prefix="installing-"))
    for name in PACKAGE_FILES:
        shutil.copy(EXAMPLE / name, work / name)
    done = subprocess.run(
        ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=900,
    )
    if done.returncode != 0:
        shutil.rmtree(work, ignore_errors=True)
        raise AssertionError(f"npm ci of the Mastra example failed:\n{done.stderr[-3000:]}")
    work.rename(target)


class MastraServer:
    """The example's `server.mjs`, copied into `directory` (where its mastra.db is kept) beside
    the installed packages, on a free port; `kill` and `start` again keep the database."""

    def __init__(self, directory: Path, model_url: str):
        self.directory = directory
        self.port = free_port()
        shutil.copy(EXAMPLE / "server.mjs", directory / "server.mjs")
        (directory / "node_modules").symlink_to(installed(), target_is_directory=True)
        self.env = {
            **os.environ,
            "PORT": str(self.port),
            "OPENAI_BASE_URL": model_url,
            "OPENAI_API_KEY": "test-key",
        }
        self.process: subprocess.Popen | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def start(self) -> None:
        with open(self.directory / "server.log", "a") as log:
            self.process = subprocess.Popen(
                ["node", "server.mjs"], cwd=self.directory, env=self.env, stdout=log, stderr=log
            )
        wait_until_listening(self.process, self._listening, "the Mastra example's server")

    def _listening(self) -> bool:
        with socket.socket() as sock:
            return sock.connect_ex(("127.0.0.1", self.port)) == 0

    def kill(self) -> None:
        self.process.kill()  # SIGKILL: nothing is written on the way out
        self.process.wait()

    def log(self) -> str:
        return (self.directory / "server.log").read_text()

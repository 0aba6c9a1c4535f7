"""Servers files for the bridge's tests: the SDK-built test server over stdio or HTTP, and the
official reference server (`@modelcontextprotocol/server-everything`, installed from npm)."""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from playground.mcp_bridge.catalog import sync_agents
from playground.runs.models import Conversation
from tests.support.live_server import BASE_DIR, free_port, wait_until_listening

TEST_SERVER = BASE_DIR / "tests" / "support" / "mcp_test_server.py"
BROKEN_SERVER = BASE_DIR / "tests" / "support" / "mcp_broken_server.py"
REFERENCE_PACKAGE = "@modelcontextprotocol/server-everything"
REFERENCE_VERSION = "2026.8.31"  # pinned: its tools and their texts are what the tests expect
NPM_CACHE = Path(tempfile.gettempdir()) / "playground-npm"


INSPECTOR_PACKAGE = "@modelcontextprotocol/inspector"
INSPECTOR_VERSION = "2.12.0"


def reference_server() -> list[str]:
    """Return the command that runs the reference server over stdio, installing it once."""
    folder = npm_installed(REFERENCE_PACKAGE, REFERENCE_VERSION)
    entry = folder / "node_modules" / REFERENCE_PACKAGE / "dist" / "index.js"
    return [shutil.which("node") or "node", str(entry), "stdio"]


def inspector_cli() -> list[str]:
    """Return the command that runs the MCP Inspector's command-line mode, installing it once."""
    folder = npm_installed(INSPECTOR_PACKAGE, INSPECTOR_VERSION)
    entry = folder / "node_modules" / INSPECTOR_PACKAGE / "clients" / "launcher" / "build"
    return [shutil.which("node") or "node", str(entry / "index.js"), "--cli"]


def npm_installed(package: str, version: str) -> Path:
    """Return the folder `package@version` is installed in, from npm the first time."""
    folder = NPM_CACHE / f"{package.rsplit('/', 1)[-1]}-{version}"
    if not (folder / "node_modules" / package / "package.json").exists():
        npm = shutil.which("npm")
        assert npm, f"npm is needed to install {package} (.ci/run installs it)"
        # Into a fresh folder, renamed into place once complete: a failed install leaves nothing.
        NPM_CACHE.mkdir(parents=True, exist_ok=True)
        partial = Path(tempfile.mkdtemp(dir=NPM_CACHE))
        spec = f"{package}@{version}"
        done = subprocess.run(
            [npm, "install", "--prefix", str(partial), "--no-audit", "--no-fund", spec],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, f"npm install {spec} failed: {done.stderr[-2000:]}"
        try:
            os.rename(partial, folder)
        except OSError:  # another run installed it meanwhile
            shutil.rmtree(partial, ignore_errors=True)
    return folder


def stdio_servers_file(directory: Path, *, protocol: str = "auto", extra: str = "") -> Path:
    """Write a servers file naming the test server over stdio as `test`; return its path."""
    path = directory / "mcp_servers.toml"
    path.write_text(
        "[servers.test]\n"
        'title = "Test server"\n'
        'transport = "stdio"\n'
        f"command = {str(sys.executable)!r}\n"
        f"args = [{str(TEST_SERVER)!r}]\n"
        'env = ["MCP_TEST_LOG"]\n'
        f'protocol = "{protocol}"\n' + extra
    )
    return path


def declare_platform_server(settings, directory: Path, platform: str) -> None:
    """Declare the test server (stdio) as the deployment's server for `platform`."""
    extra = f'platforms = ["{platform}"]\n'
    settings.MCP_SERVERS_FILE = str(stdio_servers_file(directory, extra=extra))


def broken_servers_file(directory: Path, *mode: str, protocol: str = "auto") -> Path:
    """Write a servers file naming a server that gets MCP wrong (in `mode`) as `test`."""
    path = directory / "mcp_servers.toml"
    args = ", ".join(repr(str(arg)) for arg in (BROKEN_SERVER, *mode))
    path.write_text(
        f'[servers.test]\ntitle = "Test server"\ntransport = "stdio"\n'
        f"command = {str(sys.executable)!r}\nargs = [{args}]\n"
        f'protocol = "{protocol}"\ntimeout_seconds = 3\n'
    )
    return path


def http_servers_file(
    directory: Path, url: str, *, protocol: str = "auto", extra: str = ""
) -> Path:
    path = directory / "mcp_servers.toml"
    path.write_text(
        f'[servers.test]\ntitle = "Test server"\ntransport = "http"\nurl = "{url}"\n'
        f'protocol = "{protocol}"\n' + extra
    )
    return path


def chat_with(settings, client, person, path: Path) -> Conversation:
    """Use the servers file at `path` and return a new chat of `person` with its one server."""
    settings.MCP_SERVERS_FILE = str(path)
    [agent] = sync_agents()
    client.force_login(person)
    return Conversation.objects.create(owner=person, agent=agent)


class HttpTestServer:
    """The test server on Streamable HTTP, on a free 127.0.0.1 port."""

    def __init__(self, env: dict | None = None, *, mode: str = "http", log: Path | None = None):
        """`mode`: "http", or "stateless-http" for a server that keeps no session; `log`: a
        file to write the server's output to (its access log: each request's method)."""
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        output = open(log, "wb") if log else subprocess.DEVNULL
        self.process = subprocess.Popen(
            [sys.executable, str(TEST_SERVER), mode, str(self.port)],
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT if log else subprocess.DEVNULL,
        )
        if log:
            output.close()  # the child has its own copy
        wait_until_listening(self.process, self._listening, "the MCP test server")

    def _listening(self) -> bool:
        import socket

        with socket.socket() as sock:
            return sock.connect_ex(("127.0.0.1", self.port)) == 0

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()

"""AG-UI agents for tests: a Pydantic AI agent served by its own AG-UI adapter (one path per
scripted scenario, `tests/support/agui_test_server.py`), a LangGraph graph served by
`ag-ui-langgraph`
(`agui_langgraph_server.py`) and a broken server (`agui_broken_server.py`), each a real HTTP
server in a subprocess on a free port."""

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from playground.agui.catalog import sync_agents
from playground.runs.models import Conversation
from tests.support.live_server import BASE_DIR, free_port, wait_until_listening

PYDANTIC_SERVER = BASE_DIR / "tests" / "support" / "agui_test_server.py"
BROKEN_SERVER = BASE_DIR / "tests" / "support" / "agui_broken_server.py"
LANGGRAPH_SERVER = BASE_DIR / "tests" / "support" / "agui_langgraph_server.py"


class AguiServer:
    """A server script on a free 127.0.0.1 port; `runs()` is every request body it received."""

    def __init__(self, script: Path, log: Path):
        self.port = free_port()
        self.log = log
        self.log.write_text("")
        self.process = subprocess.Popen(
            [sys.executable, str(script), str(self.port), str(log)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_until_listening(self.process, self._listening, "the AG-UI test server")

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path}"

    def runs(self, path: str | None = None) -> list[dict]:
        lines = [json.loads(line) for line in self.log.read_text().splitlines() if line]
        runs = [line for line in lines if "body" in line]  # not a tool call it emitted
        return [line["body"] for line in runs if path is None or line["path"] == path]

    def _listening(self) -> bool:
        with socket.socket() as sock:
            return sock.connect_ex(("127.0.0.1", self.port)) == 0

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()


def serving(script: Path, tmp_path_factory) -> Iterator[AguiServer]:
    """Yield a server of `script` for a test module (its fixture), and stop it after."""
    server = AguiServer(script, tmp_path_factory.mktemp("agui") / "runs.log")
    yield server
    server.stop()


def agents_file(directory: Path, url: str, extra: str = "") -> Path:
    path = directory / "agui_agents.toml"
    path.write_text(f'[agents.test]\ntitle = "Test agent"\nurl = "{url}"\n' + extra)
    return path


def chat_with(settings, client, person, path: Path) -> Conversation:
    """Use the agents file at `path`; return a new chat of `person` with its one agent."""
    settings.AGUI_AGENTS_FILE = str(path)
    [agent] = sync_agents()
    client.force_login(person)
    return Conversation.objects.create(owner=person, agent=agent)

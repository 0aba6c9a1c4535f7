"""One command connects a server (`make run MCP="..."` sets MCP_COMMAND), and the servers file
is read again when it changes, while the playground runs (a real one: daphne, no restart)."""

import sys

import pytest

from playground.mcp_bridge.servers import ServersFileError, from_command
from tests.support.live_server import LiveClient, LiveServer, wait_for
from tests.support.mcp_support import TEST_SERVER

pytestmark = pytest.mark.timeout(300)

USERS = {"alice": "alice-password-1"}


def entry(name: str) -> str:
    return (
        f'[servers.{name}]\ntitle = "{name.capitalize()} server"\ntransport = "stdio"\n'
        f"command = {str(sys.executable)!r}\nargs = [{str(TEST_SERVER)!r}]\n"
    )


@pytest.mark.parametrize(
    "command, name, transport",
    [
        ("npx -y @modelcontextprotocol/server-everything", "everything", "stdio"),
        ("npx -y @modelcontextprotocol/server-everything@2026.8.31", "everything", "stdio"),
        ("uvx mcp-server-fetch", "fetch", "stdio"),
        ("python weather_server.py", "weather", "stdio"),
        ("https://docs.example.com/mcp", "docs-example-com", "http"),
    ],
)
def test_a_command_or_url_names_a_server(command, name, transport):
    server = from_command(command)
    assert (server.name, server.transport) == (name, transport)


@pytest.mark.parametrize(
    "command, problem",
    [
        ("npx 'unclosed", "MCP_COMMAND: cannot read the command line (No closing quotation)."),
        ("   ", "MCP_COMMAND: is empty; give a command line or an http(s):// URL."),
        ("https://user@host/mcp", "MCP_COMMAND: 'https://user@host/mcp' is not an http(s)"),
    ],
)
def test_a_command_that_cannot_be_used_says_why(command, problem):
    with pytest.raises(ServersFileError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        from_command(command)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("mcp-reload")
    (workdir / "servers.toml").write_text(entry("first"))
    server = LiveServer(
        workdir,
        env={
            "MCP_SERVERS_FILE": str(workdir / "servers.toml"),
            "MCP_COMMAND": f"{sys.executable} {TEST_SERVER}",
        },
    )
    server.prepare(USERS)
    server.start()
    yield server
    server.stop()


def home(server: LiveServer) -> str:
    return LiveClient(server, "alice", USERS["alice"]).get("/")[1]


def test_the_command_s_server_is_on_the_home_page_and_answers(server):
    assert "Mcp test" in home(server)
    client = LiveClient(server, "alice", USERS["alice"])
    _, page = client.post("/agents/mcp-mcp_test/new", {})
    conversation_id = int(page.split('ws-connect="/ws/c/')[1].split("/")[0])
    wait_for(
        lambda: server.query(
            "SELECT id FROM elicitation_part WHERE conversation_id = ? AND render_kind = 'display'",
            (conversation_id,),
        ),
        message=server.log()[-2000:],
    )  # its tools card


def test_a_change_to_the_servers_file_is_picked_up_without_a_restart(server):
    assert "First server" in home(server)
    (server.workdir / "servers.toml").write_text(entry("first") + entry("second"))
    wait_for(lambda: "Second server" in home(server), message=server.log()[-2000:])
    (server.workdir / "servers.toml").write_text(entry("second"))
    wait_for(lambda: "First server" not in home(server), message=server.log()[-2000:])
    # A broken file is refused with the line at fault, until it is put right.
    (server.workdir / "servers.toml").write_text("[servers.second\n")
    wait_for(lambda: "MCP servers not loaded:" in server.log(), message=server.log()[-2000:])
    assert "servers.toml: not valid TOML" in server.log()
    (server.workdir / "servers.toml").write_text(entry("second") + "\n")
    wait_for(lambda: "Second server" in home(server), message=server.log()[-2000:])

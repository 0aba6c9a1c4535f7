"""The servers file: what it may say, and the errors that name the line or key at fault."""

import io

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.core.management.base import CommandError

from playground.mcp_bridge import servers
from playground.mcp_bridge.catalog import sync_agents
from playground.runs.models import Agent
from tests.support.mcp_support import broken_servers_file


def load(tmp_path, text: str) -> dict[str, servers.ServerConfig]:
    path = tmp_path / "servers.toml"
    path.write_text(text)
    return servers.load(path)


def refusal(tmp_path, text: str) -> str:
    with pytest.raises(servers.ServersFileError) as error:
        load(tmp_path, text)
    return str(error.value)


def test_it_reads_stdio_and_http_servers_with_their_limits(tmp_path, monkeypatch):
    monkeypatch.setenv("MCP_DOCS_AUTH", "Bearer abc")
    monkeypatch.setenv("MCP_KEY", "k")
    configured = load(
        tmp_path,
        '[servers.files]\ntransport = "stdio"\ncommand = "files-server"\nargs = ["--ro"]\n'
        'env = ["MCP_KEY"]\n\n'
        '[servers.docs]\ntransport = "http"\nurl = "https://docs.example.com/mcp"\n'
        'headers = { Authorization = "MCP_DOCS_AUTH" }\ngroups = ["staff"]\n'
        "timeout_seconds = 5\nhold_minutes = 2\nmax_result_bytes = 1000\n",
    )
    files, docs = configured["files"], configured["docs"]
    assert (files.command, files.args, files.environment()) == (
        "files-server",
        ("--ro",),
        {"MCP_KEY": "k"},
    )
    assert (files.hold_minutes, files.timeout_seconds) == (30, 60)
    assert docs.header_values() == {"Authorization": "Bearer abc"}
    assert (docs.groups, docs.timeout_seconds, docs.hold_minutes, docs.max_result_bytes) == (
        ("staff",),
        5.0,
        2.0,
        1000,
    )


def test_no_file_means_no_servers(settings):
    settings.MCP_SERVERS_FILE = ""
    assert servers.load() == {}


STDIO = '[servers.x]\ntransport = "stdio"\ncommand = "a"\n'
HTTP = '[servers.x]\ntransport = "http"\nurl = "http://h/"\n'


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[servers.x\n", "not valid TOML: Expected ']' at the end of a table declaration"),
        ("\n\n[servers.x]\ntransport = \n", "not valid TOML: Invalid value (at line 4, column 13)"),
        ('[servers.x]\ntransport = "ftp"\n', 'servers.x.transport: must be "stdio" or "http"'),
        ('[servers.x]\ntransport = "stdio"\n', "servers.x.command: a stdio server needs a command"),
        ('[servers.x]\ntransport = "http"\nurl = "file:///e"\n', "servers.x.url: an http server"),
        (STDIO + 'env = ["HOME"]\n', "servers.x.env: 'HOME' is not allowed; only environment "),
        (HTTP + 'headers = { A = "SECRET_KEY" }\n', "servers.x.headers.A: 'SECRET_KEY' is not"),
        (STDIO + "timeout = 3\n", "servers.x.timeout: unknown key"),
        (STDIO + "hold_minutes = -1\n", "servers.x.hold_minutes: must be a positive number"),
        ('[servers."Bad Name"]\ntransport = "stdio"\n', "servers.Bad Name: a name is lowercase"),
        (
            STDIO + 'connection = "github"\n',  # (this test declares no services)
            "servers.x.connection: no service 'github' is declared in the services file",
        ),
    ],
)
def test_a_bad_file_is_refused_naming_the_key_or_line(tmp_path, text, problem):
    assert problem in refusal(tmp_path, text)


@pytest.mark.django_db
def test_each_server_is_an_agent_on_the_home_page_and_a_removed_one_leaves_it(
    settings, tmp_path, client, alice
):
    settings.MCP_SERVERS_FILE = str(tmp_path / "servers.toml")
    a = '[servers.a]\ntransport = "stdio"\ncommand = "x"\n\n'
    both = load(tmp_path, a + '[servers.b]\ntransport = "stdio"\ncommand = "y"\ntitle = "Bee"\n')
    sync_agents(both)
    client.force_login(alice)
    page = client.get("/").content.decode()
    assert "/agents/mcp-a/new" in page and "Bee" in page
    sync_agents({"a": both["a"]})
    assert "/agents/mcp-b/new" not in client.get("/").content.decode()
    assert Agent.objects.get(slug="mcp-b").config == {"server": "b"}  # no command, no secrets


@pytest.mark.django_db
def test_mcp_check_names_what_is_wrong_with_each_server(settings, tmp_path):
    settings.MCP_SERVERS_FILE = str(tmp_path / "servers.toml")
    (tmp_path / "servers.toml").write_text(
        '[servers.gone]\ntransport = "stdio"\ncommand = "no-such-mcp-server"\n\n'
        '[servers.closed]\ntransport = "http"\nurl = "http://127.0.0.1:9/mcp"\n'
    )
    out = io.StringIO()
    with pytest.raises(CommandError, match="2 of 2 server"):
        call_command("mcp_check", stdout=out)
    # The address is printed beside the problem: whoever runs mcp_check deploys the servers.
    assert "gone: Could not start gone: its command was not found. (no-such-mcp-server)" in (
        out.getvalue()
    )
    assert "closed: Could not connect to closed: connection refused or unreachable. " in (
        out.getvalue()
    )
    assert "unreachable. (http://127.0.0.1:9/mcp)" in out.getvalue()
    assert "command was not found" in Agent.objects.get(slug="mcp-gone").config["status"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("mode", "protocol", "spoken"),
    [
        ("old-protocol", "auto", "2023-01-01"),  # initialize answered with an older version
        ("old-protocol", "legacy", "2023-01-01"),
        ("future-protocol", "auto", "2099-01-01"),  # -32022 naming only a newer version
    ],
)
def test_mcp_check_names_the_protocol_version_a_server_speaks(
    settings, tmp_path, mode, protocol, spoken
):
    settings.MCP_SERVERS_FILE = str(broken_servers_file(tmp_path, mode, protocol=protocol))
    out = io.StringIO()
    with pytest.raises(CommandError, match="1 of 1 server"):
        call_command("mcp_check", stdout=out)
    said = (
        f"test: Test server speaks MCP protocol version {spoken}, which this playground does "
        "not (it speaks 2024-11-05 to 2026-07-28): update the server or its MCP SDK."
    )
    assert said in out.getvalue()
    assert Agent.objects.get(slug="mcp-test").config["status"] == said.removeprefix("test: ")


@pytest.mark.django_db
def test_a_server_for_some_groups_is_hidden_from_everyone_else(
    settings, tmp_path, client, alice, bob
):
    settings.MCP_SERVERS_FILE = str(tmp_path / "servers.toml")
    (tmp_path / "servers.toml").write_text(
        '[servers.ops]\ntransport = "stdio"\ncommand = "x"\ngroups = ["ops"]\n'
    )
    sync_agents()
    Group.objects.create(name="ops").user_set.add(bob)
    client.force_login(alice)
    client.get("/")
    assert "/agents/mcp-ops/new" not in client.get("/").content.decode()
    assert client.post("/agents/mcp-ops/new").status_code == 404
    client.force_login(bob)
    client.get("/")
    assert "/agents/mcp-ops/new" in client.get("/").content.decode()


@pytest.mark.django_db
def test_the_admin_lists_the_servers_read_only_with_their_status(settings, tmp_path, admin_client):
    settings.MCP_SERVERS_FILE = str(tmp_path / "servers.toml")
    (tmp_path / "servers.toml").write_text(
        '[servers.docs]\ntransport = "http"\nurl = "https://docs.example.com/mcp"\n'
        'headers = { Authorization = "MCP_DOCS_AUTH" }\n'
    )
    sync_agents()
    page = admin_client.get("/admin/mcp_bridge/mcpserver/").content.decode()
    assert "https://docs.example.com/mcp" in page
    assert "every logged-in user" in page and "not checked yet" in page
    assert "MCP_DOCS_AUTH" not in page  # not even the name of the secret's variable
    assert admin_client.get("/admin/mcp_bridge/mcpserver/add/").status_code == 403

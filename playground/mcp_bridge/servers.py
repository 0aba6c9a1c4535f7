"""The servers file: which MCP servers this playground may talk to, and how.

Declared by whoever deploys the playground (never in the admin: a command typed into a web form
would let any staff user run programs here). `MCP_SERVERS_FILE` names a TOML file:

    [servers.weather]
    transport = "stdio"
    command = "python"
    args = ["weather_server.py"]
    env = ["MCP_WEATHER_KEY"]          # passed to the process from this environment

    [servers.docs]
    transport = "http"
    url = "https://docs.example.com/mcp"
    headers = { Authorization = "MCP_DOCS_AUTH" }   # header value read from that variable
    groups = ["staff"]                 # default: every logged-in user
    protocol = "legacy"              # its tools push elicitation/create (default: "auto")
    timeout_seconds = 60
    hold_minutes = 30
    max_result_bytes = 1_000_000
    idle_minutes = 5                   # a conversation's session stays open this long unused
    max_sessions = 20                  # open sessions with this server at once, at most
    connection = "github"              # each person's own credential (see below)
    platforms = ["github"]             # what agents the wizard makes for GitHub use

With `connection`, a server takes each person's credential from their connection to that
service (declared in the services file, `playground.connections.services`): the service's `headers`
for a
Streamable HTTP server, its `env` for a stdio process started for that person. A person with
no connection to it is asked for one (a `connection` card) before the first call.

With `platforms`, an agent the onboarding wizard makes for one of those platforms (as named
in `playground.onboarding.catalog.PLATFORMS`: "github", "zendesk", "slack", "email"...) gets
the server's tools when a model answers it.

Only environment variables whose names start with `MCP_` may be referenced; their values are
read when a connection opens and are never written to the database.

For local use `MCP_COMMAND` names one more server, a command line or a URL (`make run
MCP="npx -y @modelcontextprotocol/server-everything"`). Both are read again at each use, and
`reload` keeps the home page in step with the file while the playground runs.
"""

import os
import re
import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from playground.connections import declarations, services

ENV_PREFIX = "MCP_"
DEFAULTS = {
    "timeout_seconds": 60.0,
    "hold_minutes": 30.0,
    "max_result_bytes": 1_000_000,
    "idle_minutes": 5.0,
    "max_sessions": 20,
}


class ServersFileError(Exception):
    """The servers file cannot be used; the message names the file and the key or line."""


@dataclass(frozen=True)
class ServerConfig:
    name: str
    transport: str  # "stdio" or "http"
    # "auto": 2026-07-28 when the server speaks it, else the handshake; "legacy": the handshake
    # (for servers whose tools push elicitation/create, which only a legacy session carries)
    protocol: str = "auto"
    title: str = ""
    description: str = ""
    command: str = ""
    args: tuple[str, ...] = ()
    env: tuple[str, ...] = ()
    cwd: str = ""
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)  # header name -> env var name
    groups: tuple[str, ...] = ()
    platforms: tuple[str, ...] = ()  # the wizard's platforms this server serves
    timeout_seconds: float = DEFAULTS["timeout_seconds"]
    hold_minutes: float = DEFAULTS["hold_minutes"]
    max_result_bytes: int = DEFAULTS["max_result_bytes"]
    connection: str = ""  # the service whose per-person credential the server takes
    # Set per call by the agent, never in the file: opens the person's credential when the
    # connection is made (so it is decrypted only then, and never recorded).
    credential: Callable[[], Awaitable] | None = field(default=None, repr=False, compare=False)
    idle_minutes: float = DEFAULTS["idle_minutes"]
    max_sessions: int = DEFAULTS["max_sessions"]

    @property
    def display_name(self) -> str:
        return self.title or self.name

    @property
    def target(self) -> str:
        """Return where the server is, for people: its URL or its command line."""
        return self.url if self.transport == "http" else " ".join([self.command, *self.args])

    def environment(self) -> dict[str, str]:
        """Return the variables passed to a stdio server (only those that are set)."""
        return {name: os.environ[name] for name in self.env if name in os.environ}

    def header_values(self) -> dict[str, str]:
        """Return the HTTP headers, their values read from the environment now."""
        return {h: os.environ[var] for h, var in self.headers.items() if var in os.environ}

    def allows(self, user) -> bool:
        """Return whether `user` may use this server (any logged-in user when no groups)."""
        if not user.is_authenticated:
            return False
        return not self.groups or user.groups.filter(name__in=self.groups).exists()


def load(path: str | Path | None = None) -> dict[str, ServerConfig]:
    """Return the configured servers by name: those of the servers file at `path`, else of
    `MCP_SERVERS_FILE` and the one `MCP_COMMAND` names (none when neither is set)."""
    if path:
        return _read(Path(path))
    configured = _read(Path(settings.MCP_SERVERS_FILE)) if settings.MCP_SERVERS_FILE else {}
    if settings.MCP_COMMAND:
        server = from_command(settings.MCP_COMMAND)
        configured.setdefault(server.name, server)  # the file's server of that name wins
    return configured


def from_command(command: str) -> ServerConfig:
    """Return the server `make run MCP="..."` names: a URL (Streamable HTTP) or a command line
    (stdio), named after its package or script (`npx -y @scope/server-everything`: everything).
    """
    where = "MCP_COMMAND"
    if re.match(r"^https?://", command.strip()):
        url = command.strip()
        if not re.fullmatch(r"https?://[^\s/@]+(/\S*)?", url):
            raise ServersFileError(
                f"{where}: {url!r} is not an http(s):// URL without a user or password in it."
            )
        host = re.split(r"[/:]", url.split("://", 1)[1])[0]
        return ServerConfig(name=_name_from(host), title=host, transport="http", url=url)
    try:
        words = shlex.split(command)
    except ValueError as error:
        raise ServersFileError(f"{where}: cannot read the command line ({error}).") from None
    if not words:
        raise ServersFileError(f"{where}: is empty; give a command line or an http(s):// URL.")
    named = [w for w in words[1:] if not w.startswith("-") and w not in LAUNCHERS] or words
    name = _name_from(named[0])
    title = name.replace("-", " ").replace("_", " ").capitalize()
    return ServerConfig(
        name=name, title=title, transport="stdio", command=words[0], args=tuple(words[1:])
    )


LAUNCHERS = {"node", "python", "python3", "uv", "uvx", "run", "pipx", "deno", "bun", "tsx"}


def _name_from(word: str) -> str:
    stem = re.sub(r"@[^/]*$", "", word.rstrip("/")).rsplit("/", 1)[-1]  # no @version, no path
    stem = re.sub(r"\.(js|mjs|cjs|ts|py)$", "", stem.lower())
    stem = re.sub(r"^(mcp-server-|server-|mcp-)|(-mcp|-server|_server)$", "", stem)
    name = re.sub(r"[^a-z0-9_-]+", "-", stem).strip("-_")[:40]
    return name if declarations.NAME.match(name) else "local"


def _read(path: Path) -> dict[str, ServerConfig]:
    entries = declarations.entries(path, "servers", ServersFileError)
    configured = {name: _server(where, name, table) for where, name, table in entries}
    _check_connections(path, configured)
    return configured


def _check_connections(path: Path, configured: dict[str, ServerConfig]) -> None:
    """Refuse a `connection` naming a service the services file does not declare: found here,
    not when a person first calls the server (or never, in the wizard)."""
    taking = {name: server.connection for name, server in configured.items() if server.connection}
    if not taking:
        return
    try:
        declared = services.load()
    except services.ServicesFileError as error:
        raise ServersFileError(
            f"{path}: servers take people's connections, but the services file cannot be "
            f"read: {error}"
        ) from None
    for name, service in taking.items():
        if service not in declared:
            raise ServersFileError(
                f"{path}: servers.{name}.connection: no service {service!r} is declared in the "
                "services file (CONNECTION_SERVICES_FILE); declare it there or remove the line."
            )


def _server(where: str, name: str, table: dict) -> ServerConfig:
    known = set(ServerConfig.__dataclass_fields__) - {"name", "credential"}
    declarations.known_keys(where, table, known, ServersFileError)
    transport = table.get("transport")
    if transport not in ("stdio", "http"):
        raise ServersFileError(f'{where}.transport: must be "stdio" or "http".')
    values = {"name": name, "transport": transport}
    if table.get("protocol", "auto") not in ("auto", "legacy"):
        raise ServersFileError(f'{where}.protocol: must be "auto" or "legacy".')
    for key in ("title", "description", "command", "cwd", "url", "protocol", "connection"):
        if key in table:
            values[key] = declarations.text(where, key, table[key], ServersFileError)
    for key in ("args", "env", "groups", "platforms"):
        if key in table:
            values[key] = tuple(declarations.texts(where, key, table[key], ServersFileError))
    for key, default in DEFAULTS.items():
        if key in table:
            values[key] = declarations.positive(
                where, key, table[key], type(default), ServersFileError
            )
    if "headers" in table:
        headers = table["headers"]
        if not isinstance(headers, dict):
            raise ServersFileError(f"{where}.headers: must be a table of header = variable name.")
        values["headers"] = {h: _variable(f"{where}.headers", h, v) for h, v in headers.items()}
    for variable in values.get("env", ()):
        _variable(where, "env", variable)
    if transport == "stdio" and not values.get("command"):
        raise ServersFileError(f"{where}.command: a stdio server needs a command.")
    if transport == "http" and not re.match(r"^https?://[^\s/@]+", values.get("url", "")):
        raise ServersFileError(f"{where}.url: an http server needs an http(s):// URL.")
    return ServerConfig(**values)


def _variable(where: str, key: str, name) -> str:
    if not isinstance(name, str) or not name.startswith(ENV_PREFIX):
        raise ServersFileError(
            f"{where}.{key}: {name!r} is not allowed; only environment variables whose names "
            f"start with {ENV_PREFIX} can be passed to a server."
        )
    return name

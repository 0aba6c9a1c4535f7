"""The services file: which services a person can connect, and what a credential for one is.

Declared by whoever deploys the playground, beside the MCP servers file (never in the admin).
`CONNECTION_SERVICES_FILE` names a TOML file:

    [services.github]
    title = "GitHub"
    fields = [
      { name = "token", title = "Personal access token" },
      { name = "base_url", title = "API address", secret = false, required = false,
        default = "https://api.github.com" },
    ]
    headers = { Authorization = "Bearer {token}" }   # how the credential is presented over HTTP
    env = { GITHUB_TOKEN = "{token}" }               # ... and to a process (a stdio MCP server)
    test = { url = "{base_url}/user" }               # checked with this request before it is kept

A field is secret unless it says `secret = false`, and required unless `required = false`.
`{name}` in a header, variable or test URL is the value of that field. With a `test` request, a
credential is kept only when the service answers it with a 2xx status.

A service with an OAuth 2 client is connected by signing in at the provider instead of typing
a credential (authorization code with PKCE; `playground.connections.oauth`); it has no `fields`,
and its
headers and variables use `{access_token}` (by default `Authorization = "Bearer
{access_token}"`):

    [services.calendar]
    title = "Calendar"
    [services.calendar.oauth]
    issuer = "https://auth.example.com"   # its metadata (RFC 8414), or both endpoints:
    # authorization_endpoint = "...", token_endpoint = "...", revocation_endpoint = "..."
    client_id = "playground"              # without one: dynamic registration, where offered
    client_secret_env = "CALENDAR_CLIENT_SECRET"
    scopes = ["calendar.read"]

    [services.notes]           # a remote MCP server that requires authorization:
    title = "Notes"            # its protected-resource metadata names the authorization server,
    oauth = { resource = "https://notes.example.com/mcp" }   # which registers us dynamically
"""

import re
import string
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from playground.connections import declarations

FIELD_NAME = re.compile(r"^[a-z][a-z0-9_]{0,40}$")
# What an OAuth connection holds; its headers and variables may use the first two.
OAUTH_PLACEHOLDERS = {"access_token", "token_type"}
OAUTH_KEYS = {
    "issuer",
    "resource",
    "authorization_endpoint",
    "token_endpoint",
    "revocation_endpoint",
    "client_id",
    "client_secret_env",
    "scopes",
}


class ServicesFileError(Exception):
    """The services file cannot be used; the message names the file and the key."""


class UnknownServiceError(LookupError):
    """No service of that name is declared."""


@dataclass(frozen=True)
class CredentialField:
    name: str
    title: str
    secret: bool = True
    required: bool = True
    default: str = ""

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "title": self.title,
            "secret": self.secret,
            "required": self.required,
            "default": self.default,
        }


@dataclass(frozen=True)
class OAuthClient:
    """How to get a token: where the provider is (its issuer, the protected resource that names
    it, or both endpoints) and who we are there (a client id, else dynamic registration)."""

    issuer: str = ""
    resource: str = ""
    authorization_endpoint: str = ""
    token_endpoint: str = ""
    revocation_endpoint: str = ""
    client_id: str = ""
    client_secret_env: str = ""
    scopes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Service:
    name: str
    title: str
    fields: tuple[CredentialField, ...]
    headers: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    test_url: str = ""
    test_method: str = "GET"
    oauth: OAuthClient | None = None

    def present(self, templates: dict[str, str], values: dict[str, str]) -> dict[str, str]:
        """Return `templates` (headers or variables) with the credential's values filled in."""
        return {name: template.format_map(values) for name, template in templates.items()}


def load(path: str | Path | None = None) -> dict[str, Service]:
    """Return the declared services by name (none when no services file is set)."""
    path = path or settings.CONNECTION_SERVICES_FILE
    if not path:
        return {}
    entries = declarations.entries(Path(path), "services", ServicesFileError)
    return {name: _service(where, name, table) for where, name, table in entries}


def get(name: str) -> Service:
    """Return the declared service `name`, or raise UnknownServiceError saying so."""
    service = load().get(name)
    if service is None:
        raise UnknownServiceError(
            f"No service named {name!r} is declared in the services file "
            "(CONNECTION_SERVICES_FILE), so it cannot be connected."
        )
    return service


def _service(where: str, name: str, table: dict) -> Service:
    known = {"title", "fields", "headers", "env", "test", "oauth"}
    declarations.known_keys(where, table, known, ServicesFileError)
    title = table.get("title", name)
    if not isinstance(title, str) or not title.strip():
        raise ServicesFileError(f"{where}.title: must be a non-empty string.")
    values = {"name": name, "title": title.strip()}
    if "oauth" in table:
        if "fields" in table:
            raise ServicesFileError(f"{where}.fields: an OAuth service has no typed fields.")
        values |= {"fields": (), "oauth": _oauth(f"{where}.oauth", table["oauth"])}
        names = OAUTH_PLACEHOLDERS
    else:
        raw_fields = table.get("fields")
        if not isinstance(raw_fields, list) or not raw_fields:
            raise ServicesFileError(f"{where}.fields: list the credential's fields.")
        fields = tuple(_field(f"{where}.fields[{i}]", item) for i, item in enumerate(raw_fields))
        names = {item.name for item in fields}
        if len(names) != len(fields):
            raise ServicesFileError(f"{where}.fields: two fields have the same name.")
        values["fields"] = fields
    for key in ("headers", "env"):
        default = {"Authorization": "Bearer {access_token}"} if key == "headers" else {}
        templates = table.get(key, default if "oauth" in table else {})
        if not isinstance(templates, dict) or not all(
            isinstance(v, str) for v in templates.values()
        ):
            raise ServicesFileError(f"{where}.{key}: must be a table of name = template.")
        for item, template in templates.items():
            _placeholders(f"{where}.{key}.{item}", template, names)
        values[key] = dict(templates)
    if "test" in table:
        test = table["test"]
        if not isinstance(test, dict) or set(test) - {"url", "method"}:
            raise ServicesFileError(f"{where}.test: must be {{ url = ..., method = ... }}.")
        url = test.get("url")
        if not isinstance(url, str) or not re.match(r"^(https?://|\{\w+\})", url):
            raise ServicesFileError(f"{where}.test.url: must be an http(s):// URL.")
        _placeholders(f"{where}.test.url", url, names)
        method = test.get("method", "GET")
        if method not in ("GET", "POST", "HEAD"):
            raise ServicesFileError(f'{where}.test.method: "GET", "POST" or "HEAD".')
        values |= {"test_url": url, "test_method": method}
    return Service(**values)


def _oauth(where: str, table) -> OAuthClient:
    if not isinstance(table, dict):
        raise ServicesFileError(f"{where}: must be a table ({{ issuer = ..., ... }}).")
    if unknown := sorted(set(table) - OAUTH_KEYS):
        raise ServicesFileError(f"{where}.{unknown[0]}: unknown key.")
    for key, value in table.items():
        if key == "scopes":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ServicesFileError(f"{where}.scopes: must be a list of strings.")
        elif not isinstance(value, str):
            raise ServicesFileError(f"{where}.{key}: must be a string.")
        elif key.endswith(("_endpoint", "issuer", "resource")) and not re.match(
            r"^https?://", value
        ):
            raise ServicesFileError(f"{where}.{key}: must be an http(s):// URL.")
    endpoints = "authorization_endpoint" in table and "token_endpoint" in table
    if not (endpoints or table.get("issuer") or table.get("resource")):
        raise ServicesFileError(
            f"{where}: name the provider: issuer, resource, or authorization_endpoint and "
            "token_endpoint."
        )
    if endpoints and not table.get("client_id"):
        raise ServicesFileError(f"{where}.client_id: needed with configured endpoints.")
    if table.get("client_secret_env") and not table.get("client_id"):
        raise ServicesFileError(f"{where}.client_secret_env: only with a client_id.")
    return OAuthClient(**(table | {"scopes": tuple(table.get("scopes", ()))}))


def _field(where: str, item) -> CredentialField:
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        raise ServicesFileError(f"{where}: must be {{ name = ..., title = ... }}.")
    if unknown := sorted(set(item) - {"name", "title", "secret", "required", "default"}):
        raise ServicesFileError(f"{where}.{unknown[0]}: unknown key.")
    if not FIELD_NAME.match(item["name"]):
        raise ServicesFileError(f"{where}.name: lowercase letters, digits and _.")
    for key in ("secret", "required"):
        if not isinstance(item.get(key, True), bool):
            raise ServicesFileError(f"{where}.{key}: must be true or false.")
    for key in ("title", "default"):
        if not isinstance(item.get(key, ""), str):
            raise ServicesFileError(f"{where}.{key}: must be a string.")
    if item.get("secret", True) and item.get("default"):
        raise ServicesFileError(f"{where}.default: a secret field cannot have a default.")
    return CredentialField(
        name=item["name"],
        title=item.get("title") or item["name"].replace("_", " ").capitalize(),
        secret=item.get("secret", True),
        required=item.get("required", True),
        default=item.get("default", ""),
    )


def _placeholders(where: str, template: str, names: set[str]) -> None:
    try:
        used = {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
    except ValueError as error:
        raise ServicesFileError(f"{where}: {error}.") from None
    if unknown := sorted(used - names):
        raise ServicesFileError(f"{where}: {{{unknown[0]}}} is not one of the fields.")

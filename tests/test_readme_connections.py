"""The examples of docs/connections.md ("Connections and secrets") work as written: its
services file loads, and its agent asks for a connection, checks it, and uses it."""

import re
import sys
from pathlib import Path

import pytest

from playground.connections import services
from tests.support.connections_support import GOOD_TOKEN, DemoService, everything_stored, new_key
from tests.support.runtime_helpers import pending, said, send, start

PAGE = Path(__file__).resolve().parent.parent / "docs" / "connections.md"


def example(language: str) -> str:
    section = PAGE.read_text()
    return re.search(rf"```{language}\n(.*?)```", section, re.S).group(1)


@pytest.fixture
def github(request, settings, tmp_path, monkeypatch):
    """The page's services file and agent; the service itself is a local stand-in."""
    service = DemoService()
    request.addfinalizer(service.stop)
    path = tmp_path / "services.toml"
    path.write_text(example("toml"))
    settings.CONNECTION_SERVICES_FILE = str(path)
    settings.CONNECTIONS_KEYS = [new_key()]
    (tmp_path / "readme_connection_agent.py").write_text(example("python"))
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("readme_connection_agent", None)
    __import__("readme_connection_agent")
    return service


def test_the_services_file_declares_github(tmp_path):
    path = tmp_path / "services.toml"
    path.write_text(example("toml"))
    github = services.load(path)["github"]
    assert github.title == "GitHub"
    assert [(f.name, f.secret, f.required) for f in github.fields] == [
        ("token", True, True),
        ("api", False, False),
    ]
    assert github.test_url == "{api}/user"


def test_the_sign_in_services_file_declares_two_oauth_clients(tmp_path):
    section = PAGE.read_text()
    _, signing_in = re.findall(r"```toml\n(.*?)```", section, re.S)[:2]
    path = tmp_path / "services.toml"
    path.write_text(signing_in)
    declared = services.load(path)
    calendar, notes = declared["calendar"], declared["notes"]
    assert (calendar.oauth.issuer, calendar.oauth.client_id) == (
        "https://auth.example.com",
        "playground",
    )
    assert calendar.oauth.scopes == ("calendar.read",) and calendar.fields == ()
    assert notes.oauth.resource == "https://notes.example.com/mcp" and not notes.oauth.client_id
    assert calendar.headers == {"Authorization": "Bearer {access_token}"}


@pytest.mark.django_db(transaction=True)
def test_the_agent_asks_then_uses_the_connection(github, client, alice):
    client.force_login(alice)
    conversation = start(alice, "my-repos")
    send(client, conversation, "how many?")
    card = pending(conversation)
    data = {"field.token": GOOD_TOKEN, "field.api": github.url, "label": "Work"}
    response = client.post(f"/parts/{card.pk}/connect", data, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert said(conversation) == ["You have 2 repositories."]
    assert GOOD_TOKEN not in everything_stored()

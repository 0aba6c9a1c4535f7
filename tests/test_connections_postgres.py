"""OAuth connections on the scale-out stack (PostgreSQL): a person signs in through a real
daphne process, and two processes that use the connection at the same moment, once its access
token runs out, renew the rotating grant once (the row lock), both getting the new token."""

import subprocess
import sys

import psycopg
import pytest

from tests.support.connections_support import new_key
from tests.support.live_server import BASE_DIR, LiveClient, LiveServer
from tests.support.oauth_support import CLIENT_SECRET, OAuthTestServer, services_file
from tests.test_scaleout import PostgresDatabase, require_services, scaleout_env

PASSWORD = "alice-password-1"
# Set up, say so, wait for the word, then use the connection (renewing it) and print a digest.
USE = """
import hashlib, os, sys
from django.contrib.auth.models import User
from playground.connections.models import use
alice = User.objects.get(username="alice")
print("ready", flush=True)
sys.stdin.readline()
token = use(alice, os.environ["CONNECTION_REFERENCE"]).values["access_token"]
print(hashlib.sha256(token.encode()).hexdigest(), flush=True)
"""


def user_of(server: LiveServer, reference: str) -> subprocess.Popen:
    """Start a process that will use the connection when told to (see USE)."""
    return subprocess.Popen(
        [sys.executable, "manage.py", "shell", "--no-imports", "-c", USE],
        cwd=BASE_DIR,
        env=server.env | {"CONNECTION_REFERENCE": reference},
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


@pytest.fixture
def stack(tmp_path):
    require_services()
    database = PostgresDatabase()
    server = LiveServer(tmp_path)
    provider = OAuthTestServer(redirect_uri=f"{server.url}/connections/oauth/callback")
    server.env |= scaleout_env(database, tmp_path) | {
        "CONNECTIONS_KEY": new_key(),
        "CONNECTIONS_ALLOW_PRIVATE": "1",
        "CONNECTION_SERVICES_FILE": str(services_file(tmp_path, provider)),
        "CALENDAR_CLIENT_SECRET": CLIENT_SECRET,
    }
    try:
        server.prepare({"alice": PASSWORD})
        server.start()
        yield server, provider, database
    finally:
        server.stop()
        provider.stop()
        database.drop()


def test_two_processes_at_once_renew_a_rotating_grant_once(stack):
    server, provider, database = stack
    person = LiveClient(server, "alice", PASSWORD)
    # The form sends the browser to the provider, which signs in at once and sends it back.
    status, page = person.post("/connections/new/calendar", {"label": "Work"})
    assert status == 200 and "Connected calendar “Work”." in page
    [(reference, sealed)] = database.query("SELECT id, sealed FROM connections_connection")
    assert b"access_token" not in bytes(sealed)
    with psycopg.connect(database.url, autocommit=True) as connection:
        connection.execute(
            "UPDATE connections_connection SET expires_at = now() - interval '1 second'"
        )

    users = [user_of(server, str(reference)) for _ in range(2)]
    for user in users:
        said = user.stdout.readline().strip()
        if said != "ready":  # it failed to start: say why
            user.kill()
            pytest.fail(f"{said!r}: {user.communicate()[1]}")
    for user in users:  # both at once
        user.stdin.write("go\n")
        user.stdin.flush()
    digests = [user.communicate(timeout=60)[0].strip() for user in users]

    assert digests[0] == digests[1] and len(digests[0]) == 64, digests
    stats = provider.stats()
    assert stats["refreshes"] == 1 and stats["reused"] == 0
    [(renewed,)] = database.query("SELECT expires_at > now() FROM connections_connection")
    assert renewed

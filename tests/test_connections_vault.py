"""The vault seals credentials with AES-GCM: the database never holds a value, a ciphertext
moved to another row does not open, and keys rotate (old ones open, the first one seals)."""

import io

import pytest
from django.core.management import call_command

from playground.connections import vault
from playground.connections.models import Connection, ConnectionGoneError, use
from tests.support.connections_support import new_key, raw_database, services_file

pytestmark = pytest.mark.django_db(transaction=True)

TOKEN = "tok-at-rest-5e8f0a9c"


@pytest.fixture
def keyed(settings, tmp_path):
    settings.CONNECTIONS_KEYS = [new_key()]
    settings.CONNECTION_SERVICES_FILE = str(services_file(tmp_path))
    return settings


def test_the_database_holds_no_value(keyed, alice):
    connection = Connection.store(alice, "demo", "Work", {"token": TOKEN, "region": "eu"})
    assert TOKEN.encode() not in bytes(connection.sealed)
    assert TOKEN.encode() not in raw_database()
    assert Connection.objects.get().values() == {"token": TOKEN, "region": "eu"}


def test_a_ciphertext_moved_to_another_row_does_not_open(keyed, alice, bob):
    mine = Connection.store(alice, "demo", "Work", {"token": TOKEN})
    theirs = Connection.store(bob, "demo", "Bob", {"token": "bob-1"})
    Connection.objects.filter(pk=theirs.pk).update(sealed=mine.sealed)
    with pytest.raises(vault.VaultError, match="does not belong here"):
        Connection.objects.get(pk=theirs.pk).values()


def test_old_keys_still_open_and_the_first_key_seals(keyed, alice):
    old = Connection.store(alice, "demo", "Old", {"token": TOKEN})
    old_key = keyed.CONNECTIONS_KEYS[0]
    keyed.CONNECTIONS_KEYS = [new_key(), old_key]
    assert Connection.objects.get(pk=old.pk).values() == {"token": TOKEN}
    new = Connection.store(alice, "demo", "New", {"token": "tok-new"})
    assert vault.sealed_with_current_key(new.sealed)
    assert not vault.sealed_with_current_key(Connection.objects.get(pk=old.pk).sealed)

    out = io.StringIO()
    call_command("rotate_connections", stdout=out)
    assert out.getvalue().strip() == "Re-encrypted 1 connection."
    keyed.CONNECTIONS_KEYS = keyed.CONNECTIONS_KEYS[:1]  # the old key can go now
    assert Connection.objects.get(pk=old.pk).values() == {"token": TOKEN}


def test_a_removed_key_says_so(keyed, alice):
    Connection.store(alice, "demo", "Work", {"token": TOKEN})
    keyed.CONNECTIONS_KEYS = [new_key()]
    with pytest.raises(vault.VaultError, match="no longer in CONNECTIONS_KEY"):
        Connection.objects.get().values()


def test_without_a_key_nothing_is_stored_and_it_says_how_to_get_one(keyed, alice):
    keyed.CONNECTIONS_KEYS = []
    with pytest.raises(vault.VaultError, match="make run creates one"):
        Connection.store(alice, "demo", "Work", {"token": TOKEN})
    assert not Connection.objects.exists()


def test_a_malformed_key_is_named(keyed):
    keyed.CONNECTIONS_KEYS = ["too-short"]
    with pytest.raises(vault.VaultError, match="Key 1 in CONNECTIONS_KEY is not 32 bytes"):
        vault.keys()


def test_only_the_owner_can_use_a_connection(keyed, alice, bob):
    mine = Connection.store(alice, "demo", "Work", {"token": TOKEN})
    assert use(alice, str(mine.pk))["token"] == TOKEN
    assert TOKEN not in repr(use(alice, str(mine.pk)))
    for person, reference in [(bob, str(mine.pk)), (alice, "not-a-reference")]:
        with pytest.raises(ConnectionGoneError):
            use(person, reference)
    mine.delete()  # revoked: gone for every agent at once
    with pytest.raises(ConnectionGoneError, match="connect it again"):
        use(alice, str(mine.pk))

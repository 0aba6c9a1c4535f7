"""Seal every connection again with the first key in CONNECTIONS_KEY.

Rotate a key: put the new key first in CONNECTIONS_KEY (keep the old one after it), restart,
run this, then remove the old key.
"""

from django.core.management.base import BaseCommand

from playground.connections.models import Connection
from playground.connections.vault import sealed_with_current_key


class Command(BaseCommand):
    help = "Re-encrypt every connection with the first key in CONNECTIONS_KEY."

    def handle(self, *args, **options) -> None:
        resealed = 0
        for connection in Connection.objects.iterator():
            if not sealed_with_current_key(connection.sealed):
                connection.reseal()
                resealed += 1
        self.stdout.write(f"Re-encrypted {resealed} connection{'s' if resealed != 1 else ''}.")

"""Create the registered agents' rows and, with --local-login, a first-run login."""

import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from playground.runs.agents import REGISTRY
from playground.runs.models import Agent

LOGIN_FILE = settings.BASE_DIR / ".local-login"


class Command(BaseCommand):
    help = "Create or update the built-in agents; with --local-login, a login on first run."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--local-login",
            action="store_true",
            help="Create an admin login if there are no users yet, and print it (make run).",
        )

    def handle(self, *args, **options) -> None:
        for spec in REGISTRY.values():
            if spec.listed:
                Agent.objects.update_or_create(
                    slug=spec.slug,
                    defaults={
                        "name": spec.name,
                        "description": spec.description,
                        "kind": spec.slug,
                        "builtin": True,
                    },
                )
        if options["local_login"]:
            self._local_login()

    def _local_login(self) -> None:
        User = get_user_model()
        if not User.objects.exists():
            password = secrets.token_urlsafe(12)
            User.objects.create_superuser("admin", password=password)
            LOGIN_FILE.write_text(f"admin {password}\n")
            self.stdout.write(
                self.style.SUCCESS(
                    f"Created a local login: username admin, password {password} "
                    f"(kept in {LOGIN_FILE.name})."
                )
            )
        elif LOGIN_FILE.exists():
            username, password = LOGIN_FILE.read_text().split()
            self.stdout.write(f"Local login: username {username}, password {password}")

"""Create the registered agents' rows and, on first run only, a local login."""

import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from playground.agents import REGISTRY
from playground.models import Agent

LOGIN_FILE = settings.BASE_DIR / ".local-login"


class Command(BaseCommand):
    help = "Create or update the built-in agents, and a local login on first run."

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
        self.stdout.write("Serving on http://127.0.0.1:8000 (Ctrl+C stops).")

"""Run each declared AG-UI agent once with a trivial message, or say why it cannot be run."""

import asyncio
import uuid

from django.core.management.base import BaseCommand, CommandError

from playground.agui import agents_file, protocol
from playground.agui.catalog import AGENTS, sync_agents
from playground.agui.client import run_once

PING = "This is a connection check from the playground: reply with one word."


class Command(BaseCommand):
    help = "Run each agent in AGUI_AGENTS_FILE once and report what it sent, or what failed."

    def handle(self, *args, **options) -> None:
        try:
            declared = agents_file.load()
        except agents_file.AgentsFileError as error:
            raise CommandError(str(error)) from None
        if not declared:
            self.stdout.write("No AG-UI agents declared (set AGUI_AGENTS_FILE).")
            return
        sync_agents(declared)
        failures = 0
        for config in declared.values():
            check = uuid.uuid4().hex[:12]
            body = protocol.run_input(
                thread_id=f"agui-check-{check}",
                run_id=f"agui-check-{check}-0",
                messages=[protocol.user_message(f"check-{check}", PING)],
            )
            run = asyncio.run(run_once(config, body))
            if run["error"]:
                failures += 1
                status = run["error"]
                # The command line's reader deploys it: the address is theirs to see.
                self.stdout.write(self.style.ERROR(f"{config.name}: {status} ({config.url})"))
            else:
                status = f"OK: AG-UI run of {len(run['events'])} event(s)"
                self.stdout.write(self.style.SUCCESS(f"{config.name}: {status}"))
            AGENTS.record_status(config.name, status)
        if failures:
            raise CommandError(f"{failures} of {len(declared)} AG-UI agent(s) could not be run.")

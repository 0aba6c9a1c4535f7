"""A real SMTP server for the tests (aiosmtpd, on a local port), and the mails it received."""

import email
import email.policy
import socket
from email.message import EmailMessage

from aiosmtpd.controller import Controller


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Inbox:
    """Keeps every mail the server accepted, parsed."""

    def __init__(self):
        self.mails: list[EmailMessage] = []

    async def handle_DATA(self, server, session, envelope) -> str:
        parsed = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
        parsed["X-Envelope-To"] = ", ".join(envelope.rcpt_tos)
        self.mails.append(parsed)
        return "250 Message accepted for delivery"


class SmtpServer:
    """An SMTP server on a fixed port that can be stopped (down) and started again (back)."""

    def __init__(self):
        self.port = free_port()
        self.inbox = Inbox()
        self._controller: Controller | None = None

    @property
    def mails(self) -> list[EmailMessage]:
        return self.inbox.mails

    def start(self) -> None:
        self._controller = Controller(self.inbox, hostname="127.0.0.1", port=self.port)
        self._controller.start()

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()
            self._controller = None


def text_of(mail: EmailMessage) -> str:
    return mail.get_body(preferencelist=("plain",)).get_content()

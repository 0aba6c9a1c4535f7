"""The email about waiting questions: each question's message, its agent and a deep link.

Nothing a person typed goes in (no answers, no values, no form defaults): only what the agent
asked and where to answer it. The link needs a login and grants nothing by itself. Plain text
only, so agent text is never HTML; the subject is one line, so nothing can add a header.
"""

from dataclasses import dataclass

from django.conf import settings
from django.core.mail import EmailMessage
from django.urls import reverse

SUBJECT_LENGTH = 90


@dataclass(frozen=True)
class Question:
    """What a notification says about one waiting question."""

    agent: str
    message: str
    link: str
    reminder: bool


def deep_link(part_id: int) -> str:
    """Return the address that opens the conversation at the question.

    The question's own address (playground.inbox.views.question redirects to the conversation at
    it), not
    the conversation's with a #fragment: a browser never sends the fragment, so the login page's
    `next` would drop it and a person who had to log in first would land at the top.
    """
    return f"{settings.SITE_URL.rstrip('/')}{reverse('question', args=[part_id])}"


def one_line(text: str, limit: int) -> str:
    """Return `text` on one line (every run of whitespace, newlines included, one space)."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def subject(questions: list[Question]) -> str:
    """Return the mail's subject line."""
    if len(questions) == 1:
        [question] = questions
        verb = "still asks" if question.reminder else "asks"
        return one_line(f"{question.agent} {verb}: {question.message}", SUBJECT_LENGTH)
    waiting = "still wait" if all(question.reminder for question in questions) else "wait"
    return f"{len(questions)} questions {waiting} for your answer"


def body(name: str, questions: list[Question]) -> str:
    """Return the mail's plain-text body."""
    lines = [f"Hello {one_line(name, 150)},", ""]
    if len(questions) == 1:
        lines.append("A question waits for your answer:")
    else:
        lines.append(f"{len(questions)} questions wait for your answer:")
    for question in questions:
        still = " (still waiting)" if question.reminder else ""
        lines += ["", f"{one_line(question.agent, 80)} asks{still}:"]
        lines += [f"  {line}" for line in question.message.strip().splitlines() or [""]]
        lines.append(f"  Answer it: {question.link}")
    settings_link = f"{settings.SITE_URL.rstrip('/')}{reverse('notify_settings')}"
    lines += ["", "--", f"Choose what you are sent: {settings_link}"]
    return "\n".join(lines) + "\n"


def compose(to: str, name: str, questions: list[Question]) -> EmailMessage:
    """Return the mail telling one person about their waiting questions."""
    return EmailMessage(subject=subject(questions), body=body(name, questions), to=[to])

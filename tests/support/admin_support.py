"""Parts made the way people make them: a built-in agent asks, the chat's own views answer.

Used by the admin tests (inside pytest-django, where a run executes inline on commit) and by
the browser tests through `manage.py shell` against the live server's database.
"""

import json
from datetime import datetime, timedelta
from html.parser import HTMLParser
from importlib import import_module

from django.contrib.auth.models import Group, User
from django.db import connection
from django.db.migrations.loader import MigrationLoader
from django.test import Client

from elicitation import contract
from elicitation.models import Part
from playground.runs.models import Agent, Conversation, Turn
from tests.support.live_server import wait_for
from tests.support.runtime_helpers import answer

PASSWORD = "staff-password-1"
SECRET_PAYLOAD = {
    "message": "What is the registry password?",
    "requestedSchema": {"type": "object", "properties": {"password": {"type": "string"}}},
}
NESTED_PAYLOAD = {
    "message": "Where should the report go?",
    "requestedSchema": {
        "type": "object",
        "properties": {"address": {"type": "object", "properties": {"city": {"type": "string"}}}},
    },
}


ENVIRONMENT_SCHEMA = {
    "type": "object",
    "properties": {
        "environment": {"type": "string", "title": "Environment", "enum": ["staging", "production"]}
    },
    "required": ["environment"],
}


def make_staff(
    username: str, *, superuser: bool = False, reviewer: bool = False, password: str | None = None
) -> User:
    """Return a staff user: a superuser, a reviewer, or staff with no permissions at all.

    Without a password the account can only be logged in with force_login (no slow hashing).
    """
    if superuser:
        return User.objects.create_superuser(username, password=password)
    user = User.objects.create_user(username, password=password, is_staff=True)
    if reviewer:
        user.groups.add(reviewer_group())
    return user


def reviewer_group() -> Group:
    """The "reviewer" group, as its data migration makes it.

    A transactional test empties every table when it ends (Django makes permissions again, not
    data migrations' rows), and with parallel workers one may have run first in this process:
    so run the migration's own function again, on the migration state, as `migrate` does.
    """
    migration = import_module("elicitation.migrations.0002_reviewer_group")
    migration.create_reviewer_group(MigrationLoader(connection).project_state().apps, None)
    return Group.objects.get(name=migration.GROUP)


def make_person(username: str) -> User:
    """Return a chat user who only ever logs in through force_login (no slow hashing)."""
    return User.objects.create_user(username)


def chat_client(user: User) -> Client:
    client = Client(HTTP_HOST="localhost")
    client.force_login(user)
    return client


def ask(client: Client, owner: User, slug: str, text: str) -> Part:
    """Start a conversation with an agent, say `text`, and return the part the agent made."""
    conversation = Conversation.objects.create(owner=owner, agent=Agent.objects.get(slug=slug))
    response = client.post(f"/c/{conversation.pk}/send", {"text": text})
    assert response.status_code == 302, response.content
    wait_for_run(conversation.turns.get().pk)
    return conversation.parts.latest("created_at")


def answer_then_next(client: Client, part: Part, action: str = "accept", **values: str) -> Part:
    """Settle a part through the chat's settle view; return the next part of its turn, if any."""
    response = answer(client, part, action, **values)
    assert response.status_code == 200, response.content
    wait_for_run(part.turn_id)
    return Part.objects.filter(turn=part.turn).latest("call_index")


def wait_for_run(turn_id: int) -> None:
    """Wait until the turn's run has stopped. It runs here, in the commit hook, unless a live
    server shares the database: then that server's runner may claim it first."""
    running = Turn.objects.filter(pk=turn_id, status__in=[Turn.Status.QUEUED, Turn.Status.RUNNING])
    wait_for(lambda: not running.exists(), timeout=60, message=f"turn {turn_id} still runs")


def seed_review_data(owner: str = "alice", *, spread: bool = False) -> dict[str, Part]:
    """Make one part in every state, as `owner`, by chatting with the built-in agents.

    With `spread`, the times are moved back so a person seems to take minutes, not
    milliseconds, to answer (for screenshots; the tests use exact hand-made times instead).
    """
    person = User.objects.get(username=owner)
    client = chat_client(person)
    environment = ask(client, person, "deploy-assistant", "Ship v1.4.2 to staging please")
    approval = answer_then_next(client, environment, environment="staging", version="v1.4.2")
    declined = ask(client, person, "deploy-assistant", "Deploy the hotfix")
    answer_then_next(client, declined, "decline")
    cancelled = ask(client, person, "support-triage", "Watch our support queue")
    answer_then_next(client, cancelled, "cancel")
    parts = {
        "submitted": environment,
        "approval": approval,
        "declined": declined,
        "cancelled": cancelled,
        "degraded": ask(client, person, "schema-tester", json.dumps(SECRET_PAYLOAD)),
        "nested": ask(client, person, "schema-tester", json.dumps(NESTED_PAYLOAD)),
        "pending": ask(client, person, "deploy-assistant", "Deploy to production"),
    }
    if spread:
        for minutes, part in enumerate(parts.values(), start=1):
            _move_back(part, asked=timedelta(hours=len(parts) - minutes, minutes=minutes * 7))
    return {name: Part.objects.get(pk=part.pk) for name, part in parts.items()}


def _move_back(part: Part, *, asked: timedelta) -> None:
    part.refresh_from_db()
    took = timedelta(minutes=(part.pk % 4) + 1, seconds=(part.pk * 17) % 60)
    changes = {"created_at": part.created_at - asked - took}
    if part.pushed_at:
        changes["pushed_at"] = changes["created_at"] + timedelta(milliseconds=180)
    if part.settled_at and part.state != Part.State.DEGRADED:
        changes["settled_at"] = part.created_at - asked
    elif part.settled_at:
        changes["settled_at"] = changes["created_at"]
    if part.resumed_at:
        changes["resumed_at"] = changes.get("settled_at", part.settled_at) + timedelta(
            milliseconds=90
        )
    Part.objects.filter(pk=part.pk).update(**changes)


# --- hand-made rows, for exact numbers and for volume -----------------------------------


def make_turn(owner: User, slug: str = "deploy-assistant", text: str = "Deploy it") -> Turn:
    agent = Agent.objects.get(slug=slug)
    conversation = Conversation.objects.create(owner=owner, agent=agent, title=text)
    return Turn.objects.create(conversation=conversation, index=0, text=text, status="waiting")


def new_part(turn: Turn, call_index: int = 0, *, message: str = "Which environment?", **fields):
    """Return an unsaved elicitation part with a real normalized request; `fields` override."""
    payload = {"message": message, "requestedSchema": ENVIRONMENT_SCHEMA}
    defaults = {
        "tool_call_id": f"call_{turn.pk}_{call_index}",
        "render_kind": "elicitation",
        "payload": payload,
        "normalized": contract.parse_request(payload).to_dict(),
        "allowed_actions": ["accept", "decline", "cancel"],
    }
    return Part(
        conversation_id=turn.conversation_id,
        turn=turn,
        call_index=call_index,
        **(defaults | fields),
    )


def make_part(turn: Turn, call_index: int = 0, *, asked: datetime, took=None, **fields) -> Part:
    """Save a part asked at `asked` and, when `took` is given, settled that long after."""
    part = new_part(turn, call_index, **fields)
    part.save()
    times = {"created_at": asked, "pushed_at": asked}
    if took is not None:
        times["settled_at"] = asked + took
    Part.objects.filter(pk=part.pk).update(**times)  # created_at is auto_now_add on save
    part.refresh_from_db()
    return part


def frames(response) -> list[str]:
    """Return the documents of the chat frames on an admin page (their srcdoc, unescaped)."""
    found = []

    class Finder(HTMLParser):
        def handle_starttag(self, tag, attrs):
            attributes = dict(attrs)
            if tag == "iframe" and "chat-frame" in (attributes.get("class") or ""):
                found.append(attributes.get("srcdoc") or "")

    Finder().feed(response.content.decode())
    return found


def describe_in_wizard(username: str, text: str) -> Part:
    """Open the onboarding wizard as `username`, describe an agent, return its first question."""
    person = User.objects.get(username=username)
    client = chat_client(person)
    conversation = Conversation.objects.get(pk=client.post("/agents/new").url.split("/")[2])
    response = client.post(f"/c/{conversation.pk}/send", {"text": text})
    assert response.status_code == 302, response.content
    return conversation.parts.latest("created_at")

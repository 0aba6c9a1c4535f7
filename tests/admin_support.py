"""Parts made the way people make them: a built-in agent asks, the chat's own views answer.

Used by the admin tests (inside pytest-django, where a run executes inline on commit) and by
the browser tests through `manage.py shell` against the live server's database.
"""

import json
from datetime import timedelta

from django.contrib.auth.models import Group, User
from django.test import Client

from elicitation.models import Part
from playground.models import Agent, Conversation

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


def make_staff(username: str, *, superuser: bool = False, reviewer: bool = False) -> User:
    """Return a staff user: a superuser, a reviewer, or staff with no permissions at all."""
    if superuser:
        return User.objects.create_superuser(username, password=PASSWORD)
    user = User.objects.create_user(username, password=PASSWORD, is_staff=True)
    if reviewer:
        user.groups.add(Group.objects.get(name="reviewer"))
    return user


def chat_client(user: User) -> Client:
    client = Client(HTTP_HOST="localhost")
    client.force_login(user)
    return client


def ask(client: Client, owner: User, slug: str, text: str) -> Part:
    """Start a conversation with an agent, say `text`, and return the part the agent made."""
    conversation = Conversation.objects.create(owner=owner, agent=Agent.objects.get(slug=slug))
    response = client.post(f"/c/{conversation.pk}/send", {"text": text})
    assert response.status_code == 302, response.content
    return conversation.parts.latest("created_at")


def answer(client: Client, part: Part, action: str = "accept", **values: str) -> Part:
    """Settle a part through the chat's settle view; return the next part of its turn, if any."""
    data = {"action": action, **{f"answer.{name}": value for name, value in values.items()}}
    response = client.post(f"/parts/{part.pk}/settle", data)
    assert response.status_code == 200, response.content
    return Part.objects.filter(turn=part.turn).latest("call_index")


def seed_review_data(owner: str = "alice", *, spread: bool = False) -> dict[str, Part]:
    """Make one part in every state, as `owner`, by chatting with the built-in agents.

    With `spread`, the times are moved back so a person seems to take minutes, not
    milliseconds, to answer (for screenshots; the tests use exact hand-made times instead).
    """
    person = User.objects.get(username=owner)
    client = chat_client(person)
    environment = ask(client, person, "deploy-assistant", "Ship v1.4.2 to staging please")
    approval = answer(client, environment, environment="staging", version="v1.4.2")
    declined = ask(client, person, "deploy-assistant", "Deploy the hotfix")
    answer(client, declined, "decline")
    cancelled = ask(client, person, "support-triage", "Watch our support queue")
    answer(client, cancelled, "cancel")
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

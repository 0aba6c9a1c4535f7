"""The onboarding wizard as the tests open it (a fresh draft, as the "New agent" button makes),
and the descriptions and model replies they set agents up with."""

from playground.runs.models import Conversation

# A description the rules read whole: the wizard goes straight to its card.
COMPLETE = "Every weekday at 9am summarise new GitHub issues in #eng-triage (Berlin time)"

# For a scripted model: a description, the model's clarifying question, and its proposal.
DESCRIPTION = "Summarise new GitHub issues for me every other Monday morning"
ZONE_QUESTION = {
    "message": "What time on Monday, and in which time zone?",
    "requestedSchema": {
        "type": "object",
        "properties": {
            "time": {"type": "string", "title": "Time", "default": "09:00"},
            "timezone": {"type": "string", "title": "Time zone", "default": "Europe/Berlin"},
        },
        "required": ["time", "timezone"],
    },
}
PROPOSAL = {
    "name": "Issue digest",
    "purpose": "Summarises new GitHub issues.",
    "instructions": "Read the GitHub issues opened since the last run and summarise them.",
    "platform": "github",
    "trigger_kind": "every_n_weeks",
    "trigger_weeks": 2,
    "trigger_days": ["monday"],
    "trigger_time": "09:00",
    "timezone": "Europe/Berlin",
    "destination_kind": "chat",
}


def open_wizard(client) -> Conversation:
    """Open a fresh onboarding conversation the way the "New agent" button does."""
    response = client.post("/agents/new")
    return Conversation.objects.get(pk=response.url.split("/")[2])

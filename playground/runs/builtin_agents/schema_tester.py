"""Schema tester: paste a `request_input` payload, answer the form, see the exact envelope."""

import json

from playground.runs.agents import agent

EXAMPLE = (
    '{"message": "Which environment?", "requestedSchema": {"type": "object", '
    '"properties": {"env": {"type": "string", "enum": ["staging", "production"]}}, '
    '"required": ["env"]}}'
)


# What a first try can click: a choice, a booking with a date-time, a multi-select.
SAMPLES = (
    ("A choice: which environment?", EXAMPLE),
    (
        "A booking: date, time and guests",
        json.dumps(
            {
                "message": "When should I book the table?",
                "requestedSchema": {
                    "type": "object",
                    "properties": {
                        "when": {"type": "string", "format": "date-time", "title": "When"},
                        "guests": {
                            "type": "integer",
                            "title": "Guests",
                            "minimum": 1,
                            "maximum": 12,
                            "default": 2,
                        },
                        "notes": {"type": "string", "format": "multiline", "title": "Notes"},
                    },
                    "required": ["when", "guests"],
                },
            }
        ),
    ),
    (
        "A multi-select: which checks to run?",
        json.dumps(
            {
                "message": "Which checks should run before the release?",
                "requestedSchema": {
                    "type": "object",
                    "properties": {
                        "checks": {
                            "type": "array",
                            "title": "Checks",
                            "minItems": 1,
                            "items": {
                                "anyOf": [
                                    {"const": "unit", "title": "Unit tests"},
                                    {"const": "browser", "title": "Browser tests"},
                                    {"const": "lint", "title": "Lint"},
                                ]
                            },
                        }
                    },
                    "required": ["checks"],
                },
            }
        ),
    ),
)


@agent(
    "schema-tester",
    name="Schema tester",
    description="Paste a request_input payload as JSON: it asks it verbatim and shows the "
    "envelope it gets back.",
    samples=SAMPLES,
)
async def schema_tester(ctx, message: str) -> None:
    try:
        payload = json.loads(message)
    except ValueError as error:
        await ctx.say(
            f"That is not JSON ({error.msg} at line {error.lineno}, column {error.colno}). "
            f"Paste a `request_input` payload, for example:\n\n```json\n{EXAMPLE}\n```"
        )
        return
    fields = payload if isinstance(payload, dict) else {}
    response = await ctx.render(
        kind="elicitation",
        message=fields.get("message"),
        data_schema=fields.get("requestedSchema"),
        allowed_actions=["accept", "decline", "cancel"],
    )
    if response.action == "error":
        await ctx.say(f"I received this error as the tool result:\n\n```\n{response.text}\n```")
    else:
        envelope = json.dumps(response.envelope, indent=2, ensure_ascii=False)
        await ctx.say(f"I received this envelope:\n\n```json\n{envelope}\n```")

"""Schema tester: paste a `request_input` payload, answer the form, see the exact envelope."""

import json

from playground.agents import agent

EXAMPLE = (
    '{"message": "Which environment?", "requestedSchema": {"type": "object", '
    '"properties": {"env": {"type": "string", "enum": ["staging", "production"]}}, '
    '"required": ["env"]}}'
)


@agent(
    "schema-tester",
    name="Schema tester",
    description="Paste a request_input payload as JSON: it asks it verbatim and shows the "
    "envelope it gets back.",
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

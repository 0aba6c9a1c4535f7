"""Ask for a tool's arguments: a form made from its `inputSchema` when our contract can show it
(flat), otherwise a JSON field checked with jsonschema against the `inputSchema`."""

import json
import re

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from elicitation import contract
from elicitation.secrets import is_secret_name
from playground.runs.runtime import TurnContext

MAX_ATTEMPTS = 5
# A title that is one identifier ("forecastArguments", "Options") is the name of the model the
# server's SDK generated the schema from, not words for a person.
GENERATED_TITLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def drop_generated_title(schema):
    """Return `schema` without a top-level title that is a generated model name."""
    title = schema.get("title") if isinstance(schema, dict) else None
    if isinstance(title, str) and GENERATED_TITLE.match(title):
        return {key: value for key, value in schema.items() if key != "title"}
    return schema


async def ask_arguments(ctx: TurnContext, tool: dict) -> dict | None:
    """Return the arguments the person gave for `tool`, or None when they did not."""
    schema = drop_generated_title(tool.get("inputSchema") or {"type": "object"})
    name = tool["name"]
    if not schema.get("properties"):
        return {}
    if secrets := [field for field in schema["properties"] if is_secret_name(str(field))]:
        await ctx.report_error(
            f"{name} takes a secret ({', '.join(secrets)}) as an argument; this playground never "
            "stores secrets, so it cannot call it."
        )
        return None
    # files=False: a file picked here could not be sent to the server (MCP has none).
    asked = {"message": name, "requestedSchema": schema}
    if not isinstance(contract.parse_request(asked, files=False), contract.Degraded):
        response = await ctx.elicit(f"Arguments for {name}", schema, allowed_actions=["accept"])
        return response.content if response.accepted else None
    return await _ask_json(ctx, name, schema)


async def _ask_json(ctx: TurnContext, name: str, schema: dict) -> dict | None:
    typed, problem = "{}", ""
    for _ in range(MAX_ATTEMPTS):
        message = f"Arguments for {name}, as JSON"
        if problem:
            message += f" (the last ones were refused: {problem})"
        response = await ctx.elicit(
            message,
            {
                "type": "object",
                "properties": {
                    "arguments": {
                        "type": "string",
                        "title": "Arguments (JSON)",
                        "description": "Nested values: this tool's schema is more than a form.",
                        "x-ui": {"widget": "code"},
                    }
                },
                "required": ["arguments"],
            },
            value={"arguments": typed},
            allowed_actions=["accept"],
        )
        if not response.accepted:
            return None
        typed = response.content.get("arguments", "")
        arguments, problem = check_json_arguments(typed, schema)
        if not problem:
            return arguments
    return None


def check_json_arguments(text: str, schema: dict) -> tuple[dict | None, str]:
    """Return (arguments, "") for JSON that `schema` accepts, or (None, what is wrong)."""
    try:
        arguments = json.loads(text)
    except ValueError as error:
        return None, f"not valid JSON: {error}"
    if not isinstance(arguments, dict):
        return None, "the arguments must be a JSON object"
    try:
        errors = sorted(Draft202012Validator(schema).iter_errors(arguments), key=str)
    except SchemaError as error:
        return None, f"the tool's own inputSchema is invalid: {error.message}"
    if errors:
        where = "/".join(str(step) for step in errors[0].absolute_path) or "arguments"
        return None, f"{where}: {errors[0].message}"
    return arguments, ""

"""Deploy assistant: asks where to deploy, then asks for approval before the deploy."""

import re
import secrets

from playground.runs.agents import agent

ENVIRONMENTS = {
    "type": "object",
    "properties": {
        "environment": {
            "type": "string",
            "title": "Environment",
            "oneOf": [
                {"const": "preview", "title": "Preview", "description": "A throwaway copy."},
                {"const": "staging", "title": "Staging", "description": "Shared test servers."},
                {"const": "production", "title": "Production", "description": "Real users."},
            ],
        },
        "version": {
            "type": "string",
            "title": "Version",
            "description": "A tag or commit, like v1.4.2.",
            "default": "main",
            "maxLength": 40,
        },
    },
    "required": ["environment"],
}


TITLES = {o["const"]: o["title"] for o in ENVIRONMENTS["properties"]["environment"]["oneOf"]}
VERSION = re.compile(r"\bv\d+(?:\.\d+)*\b")


def _named_in(message: str) -> dict | None:
    """Return the environment and version a message names ("deploy v1.4 to staging"), if any."""
    words = set(re.findall(r"[a-z]+", message.lower()))
    named = [const for const in TITLES if const in words]
    value = {"environment": named[0]} if named else {}
    if version := VERSION.search(message):
        value["version"] = version.group()
    return value or None


def _deploy(environment: str, version: str) -> dict:
    """Stand-in for the real deploy call: a step, so a replay never deploys twice."""
    return {"deployment": f"dep-{secrets.token_hex(4)}", "environment": environment}


@agent(
    "deploy-assistant",
    name="Deploy assistant",
    description="Deploys the web app: asks which environment, then asks before it deploys.",
    samples=(
        ("Deploy to staging", "Deploy to staging"),
        ("Deploy v1.4.2 to production", "Deploy v1.4.2 to production"),
        ("Deploy a preview", "Deploy a preview of main"),
    ),
)
async def deploy_assistant(ctx, message: str) -> None:
    answer = await ctx.elicit(
        "Which environment should I deploy to?", ENVIRONMENTS, value=_named_in(message)
    )
    if not answer.accepted:
        await ctx.say("Okay, nothing was deployed.")
        return
    # The option's title, as the form and the chip show it ("Staging", not "staging").
    environment = TITLES[answer.content["environment"]]
    version = answer.content.get("version", "main")
    approved = await ctx.confirm(
        f"Deploy version {version} of the web app to {environment}? "
        "This replaces what is running there now.",
        details={"Environment": environment, "Version": version, "Service": "web app"},
        action="deploy",
    )
    if not approved:
        await ctx.say(f"Deployment to {environment} cancelled; nothing changed.")
        return
    result = await ctx.step("deploy", _deploy, answer.content["environment"], version)
    await ctx.say(
        f"Deployed **{version}** to **{environment}** (deployment `{result['deployment']}`)."
    )

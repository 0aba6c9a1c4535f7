"""Deploy assistant: asks where to deploy, then asks for approval before the deploy."""

import secrets

from playground.agents import agent

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


def _deploy(environment: str, version: str) -> dict:
    """Stand-in for the real deploy call: a step, so a replay never deploys twice."""
    return {"deployment": f"dep-{secrets.token_hex(4)}", "environment": environment}


@agent(
    "deploy-assistant",
    name="Deploy assistant",
    description="Deploys the web app: asks which environment, then asks before it deploys.",
)
async def deploy_assistant(ctx, message: str) -> None:
    answer = await ctx.elicit("Which environment should I deploy to?", ENVIRONMENTS)
    if not answer.accepted:
        await ctx.say("Okay, nothing was deployed.")
        return
    environment = answer.content["environment"]
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
    result = await ctx.step("deploy", _deploy, environment, version)
    await ctx.say(
        f"Deployed **{version}** to **{environment}** (deployment `{result['deployment']}`)."
    )

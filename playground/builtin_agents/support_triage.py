"""Support triage: asks which support platform to watch and how often to check it."""

from playground.agents import agent

SETUP = {
    "type": "object",
    "properties": {
        "platform": {
            "type": "string",
            "title": "Support platform",
            "oneOf": [
                {"const": "zendesk", "title": "Zendesk"},
                {"const": "intercom", "title": "Intercom"},
                {"const": "freshdesk", "title": "Freshdesk"},
                {"const": "helpscout", "title": "Help Scout"},
                {"const": "front", "title": "Front"},
                {"const": "email", "title": "A shared email inbox"},
            ],
        },
        "interval_minutes": {
            "type": "integer",
            "title": "Check every (minutes)",
            "minimum": 5,
            "maximum": 1440,
            "default": 15,
        },
        "urgent_only": {
            "type": "boolean",
            "title": "Only flag urgent tickets",
            "default": True,
        },
    },
    "required": ["platform", "interval_minutes"],
}


@agent(
    "support-triage",
    name="Support triage",
    description="Watches a support platform and flags tickets that need a person.",
)
async def support_triage(ctx, message: str) -> None:
    answer = await ctx.elicit("Which support platform should I watch, and how often?", SETUP)
    if not answer.accepted:
        await ctx.say("No problem: I won't watch anything for now.")
        return
    labels = {o["const"]: o["title"] for o in SETUP["properties"]["platform"]["oneOf"]}
    what = "urgent tickets" if answer.content.get("urgent_only") else "new tickets"
    await ctx.say(
        f"I'll check **{labels[answer.content['platform']]}** every "
        f"{answer.content['interval_minutes']} minutes and flag {what} here."
    )

"""An agent made in the onboarding wizard: it runs on the configuration stored on its row.

No platform is connected in the playground, so a run says what the agent is set up to do and
asks the person (request_input) for what it would otherwise read: which items, from how long.
Its trigger runs it on its own: each slot is a turn in its Runs conversation (see
playground/scheduler.py), asking the same question there.
"""

from __future__ import annotations

from typing import Any

from playground.agents import Planned, agent
from playground.onboarding import catalog, setup_agent, summary

RANGES = (
    ("last_hour", "The last hour"),
    ("last_day", "The last 24 hours"),
    ("last_week", "The last 7 days"),
    ("last_month", "The last 30 days"),
)
SCOPES = (
    ("new", "Only new ones", "Nothing I have seen before."),
    ("waiting", "Ones still waiting for a reply", "Unanswered or unresolved."),
    ("all", "All of them", "Everything in the time range."),
)
# How far back a run looks by default: about one schedule period.
DEFAULT_RANGE = {
    "every_n_minutes": "last_hour",
    "hourly": "last_hour",
    "times_a_day": "last_day",
    "weekly": "last_week",
    "every_n_weeks": "last_month",
    "monthly": "last_month",
}
MAX_FOCUS_CHARS = 200


def run_schema(config: dict[str, Any]) -> dict[str, Any]:
    """Return the question a run asks: which items to look at, from how far back."""
    trigger = config.get("trigger") or {}
    return {
        "type": "object",
        "properties": {
            "scope": {
                "type": "string",
                "title": f"Which {summary.items(config)}",
                "oneOf": [
                    {"const": value, "title": title, "description": description}
                    for value, title, description in SCOPES
                ],
                "default": "new",
            },
            "since": {
                "type": "string",
                "title": "From how far back",
                "oneOf": [{"const": value, "title": title} for value, title in RANGES],
                "default": DEFAULT_RANGE.get(trigger.get("kind"), "last_day"),
            },
            "focus": {
                "type": "string",
                "title": "Anything to look out for",
                "description": "Optional: words, customers or labels that matter most.",
                "maxLength": MAX_FOCUS_CHARS,
                "x-ui": {"placeholder": "refunds, outages, VIP customers"},
            },
        },
        "required": ["scope", "since"],
    }


def planned(row) -> Planned | None:
    """Return when a wizard-made agent runs: its trigger, in its zone."""
    trigger = (row.config or {}).get("trigger")
    if not isinstance(trigger, dict) or not trigger.get("kind"):
        return None
    zone = (row.config or {}).get("timezone") or "UTC"
    return Planned(trigger, zone if catalog.is_timezone(zone) else "UTC", summary.when(row.config))


def introduction(ctx) -> str:
    plan = summary.what_it_does(ctx.config, first_person=True)
    return f"I'm **{ctx.agent.name}**. I'm set up to {plan}."


@agent(
    "configured",
    name="Configured agent",
    description="An agent made in the onboarding wizard.",
    listed=False,
    schedule=planned,
)
async def configured(ctx, message: str) -> None:
    if await setup_agent.is_setup_turn(ctx):
        # The turn that created this agent: it finishes as the setup agent began it.
        await setup_agent.setup(ctx, message)
        return
    config = ctx.config
    platform = summary.platform_title(config)
    await ctx.say(introduction(ctx))
    answer = await ctx.elicit(
        f"Nothing is connected to {platform} in this playground, so tell me what to look at: "
        f"which {summary.items(config)}, and from how far back?",
        run_schema(config),
        allowed_actions=["accept"],
    )
    if not answer.accepted:
        await ctx.say("Okay, I'll leave it for now. Send me a message when you want a run.")
        return
    scope = {value: title for value, title, _ in SCOPES}[answer.content["scope"]]
    since = dict(RANGES)[answer.content["since"]]
    focus = (answer.content.get("focus") or "").strip()
    plan = (
        f"Here is what this run would do: read {summary.items(config)} from "
        f"{since.lower()} ({scope.lower()})"
    )
    if focus:
        plan += f", looking out for {focus}"
    plan += f", then {summary.delivery(config, first_person=True)}."
    await ctx.say(f"{plan}\n\nThere is no {platform} connection here, so nothing was read or sent.")

"""Support triage: asks which support platform to watch and how often, then really runs that
often (a schedule of the person's own, each run a turn in its Runs conversation).

No support platform is connected in the playground, so a run says plainly that it read
nothing and flagged nothing, instead of pretending; Pause and Run now are on its page.
"""

from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model

from playground import scheduler
from playground.agents import Planned, agent
from playground.models import Agent, Schedule
from playground.push import push_html

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
LABELS = {option["const"]: option["title"] for option in SETUP["properties"]["platform"]["oneOf"]}


@agent(
    "support-triage",
    name="Support triage",
    description="Watches a support platform and flags tickets that need a person.",
    samples=(
        ("Watch our Zendesk", "Watch our Zendesk for urgent tickets"),
        ("Watch Intercom", "Watch Intercom for new conversations"),
        ("Help me choose", "Which platforms can you watch?"),
    ),
)
async def support_triage(ctx, message: str) -> None:
    if ctx.turn.scheduled:
        await _check(ctx)
        return
    # A platform the message names is filled in; the person still confirms it.
    options = SETUP["properties"]["platform"]["oneOf"]
    named = [option["const"] for option in options if option["title"].lower() in message.lower()]
    value = {"platform": named[0]} if named else None
    answer = await ctx.elicit(
        "Which support platform should I watch, and how often?", SETUP, value=value
    )
    if not answer.accepted:
        await ctx.say("No problem: I won't watch anything for now.")
        return
    content = answer.content
    await ctx.step("schedule the checks", _schedule, ctx.agent.pk, ctx.user.pk, content)
    # The page's schedule panel appears with Pause and Run now.
    panel = await sync_to_async(scheduler.render_panel)(ctx.agent, ctx.user)
    await push_html(ctx.conversation.pk, panel)
    platform = LABELS[content["platform"]]
    await ctx.say(
        f"Scheduled: I'll run every {content['interval_minutes']} minutes, each run a turn in "
        "my **Runs** conversation; pause it or run it now from the panel above. Nothing is "
        f"connected to {platform} in this playground, so each run will say that it read "
        f"nothing, rather than pretend to flag {_what(content)}."
    )


def _what(settings: dict) -> str:
    return "urgent tickets" if settings.get("urgent_only") else "new tickets"


def _schedule(agent_id: int, user_id: int, content: dict) -> dict:
    """Give the person their own schedule of checks, every N minutes from now."""
    row = Agent.objects.get(pk=agent_id)
    minutes = content["interval_minutes"]
    plan = Planned(
        {"kind": "every_n_minutes", "minutes": minutes},
        description=f"every {minutes} minutes",
        config={"platform": content["platform"], "urgent_only": bool(content.get("urgent_only"))},
    )
    schedule = scheduler.set_schedule(row, get_user_model().objects.get(pk=user_id), plan)
    return {"schedule": schedule.pk}


async def _check(ctx) -> None:
    """One scheduled check: say what it would look at, and that nothing could be read."""
    mine = Schedule.objects.filter(agent=ctx.agent, owner=ctx.user)
    settings = await mine.values_list("config", flat=True).afirst() or {}
    platform = LABELS.get(settings.get("platform"), "the support platform")
    await ctx.say(
        f"Checked for {_what(settings)} on **{platform}**: nothing is connected to {platform} "
        "in this playground, so nothing was read and nothing was flagged."
    )

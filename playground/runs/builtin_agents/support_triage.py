"""Support triage: asks which support platform to watch and how often, then really runs that
often (a schedule of the person's own, each run a turn in its Runs conversation).

A run reads the platform only through a checker an app above the playground registers
(llm_agents: a model with the MCP servers declared for the platform). Lacking one, or what the
checker needs, the schedule is made paused and the agent says what it lacks; a run (Run now,
or after Resume) says plainly what it lacks and that it read and flagged nothing, instead of
pretending. Pause, Resume and Run now are on its page.
"""

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model

from playground.chat.push import push_html
from playground.runs.agents import Planned, agent
from playground.runs.models import Agent, Schedule
from playground.schedules import scheduler

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


@dataclass(frozen=True)
class Checker:
    """How a run really checks the platform, offered by an app above the playground."""

    # (platform, user id) -> what a check lacks for that person, in sentences; none: ready.
    missing: Callable[[str, int], list[str]]
    # One check of the scheduled turn; called only when nothing is missing.
    check: Callable[..., Awaitable[None]]


CHECKERS: list[Checker] = []


def register_checker(checker: Checker) -> None:
    CHECKERS.append(checker)


def missing(platform: str, user_id: int) -> list[str]:
    """Return what a check of the platform lacks for the person (nothing: it can read it)."""
    if not CHECKERS:
        return [f"Nothing is connected to {LABELS[platform]} in this playground."]
    return CHECKERS[0].missing(platform, user_id)


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
    lacking = await ctx.step(
        "what a check lacks", missing, content["platform"], ctx.user.pk, shown=False
    )
    ready = not lacking
    await ctx.step("schedule the checks", _schedule, ctx.agent.pk, ctx.user.pk, content, ready)
    # The page's schedule panel appears with Pause (or Resume) and Run now.
    panel = await sync_to_async(scheduler.render_panel)(ctx.agent, ctx.user)
    await push_html(ctx.conversation.pk, panel)
    every = f"every {content['interval_minutes']} minutes"
    platform = LABELS[content["platform"]]
    if ready:
        await ctx.say(
            f"Scheduled: I'll run {every}, each run a turn in my **Runs** conversation; pause "
            f"it or run it now from the panel above. Each run reads {platform} and flags "
            f"{_what(content)}, asking you here when it needs a decision."
        )
        return
    await ctx.say(
        f"I cannot read {platform} yet, so I have not started the checks: your schedule "
        f"({every}) is paused, since each run could only say it read nothing. Once I can, "
        f"I'll read {platform} {every} and flag {_what(content)}; press **Resume** in the "
        f"panel above then. What I lack:\n\n{_lines(lacking)}"
    )


def _lines(sentences: list[str]) -> str:
    return "\n".join(f"- {sentence}" for sentence in sentences)


def _what(settings: dict) -> str:
    return "urgent tickets" if settings.get("urgent_only") else "new tickets"


def _schedule(agent_id: int, user_id: int, content: dict, ready: bool) -> dict:
    """Give the person their own schedule of checks, every N minutes from now; paused while
    a check cannot read the platform (`ready` False), so no run only says it read nothing."""
    row = Agent.objects.get(pk=agent_id)
    minutes = content["interval_minutes"]
    plan = Planned(
        {"kind": "every_n_minutes", "minutes": minutes},
        description=f"every {minutes} minutes",
        config={"platform": content["platform"], "urgent_only": bool(content.get("urgent_only"))},
    )
    schedule = scheduler.set_schedule(row, get_user_model().objects.get(pk=user_id), plan)
    if not ready:
        scheduler.pause(schedule)
    elif schedule.paused:
        scheduler.resume(schedule)
    return {"schedule": schedule.pk}


async def _check(ctx) -> None:
    """One scheduled check: the registered checker's, or what it lacks and that nothing was
    read."""
    mine = Schedule.objects.filter(agent=ctx.agent, owner=ctx.user)
    settings = await mine.values_list("config", flat=True).afirst() or {}
    if settings.get("platform") not in LABELS:
        await ctx.say("I have no platform to check: tell me which one in a message.")
        return
    lacking = await ctx.step(
        "what a check lacks", missing, settings["platform"], ctx.user.pk, shown=False
    )
    if not lacking:
        await CHECKERS[0].check(ctx, settings, instructions(settings))
        return
    await ctx.say(
        f"Checked for {_what(settings)} on **{LABELS[settings['platform']]}**: nothing was "
        f"read and nothing was flagged.\n\n{_lines(lacking)}"
    )


def instructions(settings: dict) -> str:
    """Return what a checker's model is told to do on one run."""
    platform = LABELS[settings["platform"]]
    return (
        f"You are Support triage. On each run, read the {platform} tickets and conversations "
        f"opened or updated recently with your tools and flag the {_what(settings)} that need "
        "a person: list each with its title, who raised it and why it needs someone. When a "
        "decision is the person's to make, ask with request_input. Never say you read or "
        "flagged something you did not do with a tool; if nothing needs a person, say so."
    )

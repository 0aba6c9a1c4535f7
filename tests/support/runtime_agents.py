"""Agents that exercise the runtime in tests. Live servers import them via AGENT_MODULES."""

import asyncio
import os
import signal
from pathlib import Path

from django.db import transaction

from elicitation.settle import part_settling
from playground.runs.agents import agent
from tests.support.live_server import wait_for

# Shaped like a Stripe live key, so the redaction must catch it wherever an error quotes it.
CARD_KEY = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
SIDE_EFFECTS: list[str] = []  # what steps did, in this process


def _record(what: str) -> str:
    SIDE_EFFECTS.append(what)
    return what


@agent("test-greeter", name="Test greeter", listed=False)
async def greeter(ctx, message: str) -> None:
    await ctx.say("Hello! One question first.")
    side = await ctx.step("lookup", _record, f"lookup for {message}")
    answer = await ctx.elicit("What should I call you?", NAME)
    if answer.accepted:
        await ctx.say(f"Nice to meet you, {answer.content['name']} ({side}).")
    else:
        await ctx.say(f"No name then ({answer.action}).")


@agent("test-degraded", name="Test degraded", listed=False)
async def degraded(ctx, message: str) -> None:
    nested = {"type": "object", "properties": {"config": {"type": "object"}}}
    answer = await ctx.elicit("Configure it", nested)
    await ctx.say(f"Tool result: {answer.text}")


@agent("test-failing", name="Test failing", listed=False)
async def failing(ctx, message: str) -> None:
    await ctx.say("Starting.")
    if message == "with a key":
        raise RuntimeError(f"card declined for order-42 (api_key={CARD_KEY})")
    raise ValueError("the upstream service said no")


@agent("test-kinds", name="Test kinds", listed=False)
async def kinds(ctx, message: str) -> None:
    shown = await ctx.render(kind="display", message="Summary", value={"title": "Plan"})
    chart = await ctx.render(kind="chart", message="A chart", data_schema={})
    await ctx.say(f"display: {shown.action}; chart: {chart.action} ({chart.text})")


@agent("test-text-only", name="Test text only", listed=False)
async def text_only(ctx, message: str) -> None:
    if message == "prose":
        answer = await ctx.elicit("Name?", NAME, allowed_actions=["accept", "respond"])
        await ctx.say(f"Got {answer.action}: {answer.text}")
    else:
        await ctx.elicit("Name?", NAME)


@agent("test-approval", name="Test approval", listed=False)
async def approval(ctx, message: str) -> None:
    approved = await ctx.confirm("Delete the file?", details={"path": message}, action="delete")
    await ctx.say("Deleted." if approved else "Kept.")


@agent("test-class", name="Test class", listed=False)
class ClassAgent:
    async def run(self, ctx, message: str) -> None:
        await ctx.say(f"class agent heard: {message}")


THOUGHT: dict[str, asyncio.Event] = {}  # "slow" runs wait here until the test sets it


@agent("test-thinking", name="Test thinking", listed=False)
async def thinking(ctx, message: str) -> None:
    if message == "slow":
        await THOUGHT["slow"].wait()  # a model call the person waits for
    await ctx.say(f"Thought it over ({message}).")


def _blocking_step(marker_dir: str) -> str:
    """Note that the step started, then wait until the test releases it."""
    folder = Path(marker_dir)
    with open(folder / "started", "a") as started:
        started.write("x")
    wait_for(lambda: (folder / "release").exists(), timeout=60, interval=0.02)
    return "slow result"


def _counted_step(marker_dir: str) -> str:
    with open(Path(marker_dir) / "fast", "a") as ran:
        ran.write("x")
    return "fast result"


@agent("test-slow", name="Test slow", listed=True)
async def slow(ctx, message: str) -> None:
    """Used by the restart test: a recorded step, then a step that blocks until released."""
    marker_dir = os.environ["TEST_MARKER_DIR"]
    first = await ctx.step("fast", _counted_step, marker_dir)
    await ctx.say(f"First step: {first}.")
    second = await ctx.step("slow", _blocking_step, marker_dir)
    await ctx.say(f"Second step: {second}.")


RUNS = {"count": 0}


@agent("test-nondeterministic", name="Test nondeterministic", listed=False)
async def nondeterministic(ctx, message: str) -> None:
    RUNS["count"] += 1
    await ctx.elicit(f"Question number {RUNS['count']}?", NAME)


def _die_after_settling(sender, part, **kwargs) -> None:
    """In a live server with DIE_AFTER_SETTLING set: SIGKILL the moment a settlement commits.

    That is the window between the answer being saved and anything reacting to it: the
    response, the pushes and the run's progress all come after.
    """
    if os.environ.get("DIE_AFTER_SETTLING"):
        transaction.on_commit(lambda: os.kill(os.getpid(), signal.SIGKILL))


part_settling.connect(_die_after_settling, dispatch_uid="test-die-after-settling")


GITHUB_SIGN_IN = "https://github.com/login/oauth/authorize?client_id=abc"


@agent("test-url", name="Test URL", listed=False)
async def url_page(ctx, message: str) -> None:
    """Ask the person to open a page (URL mode), then wait until it is done."""
    page = {"url": message, "server": "github", "elicitationId": "sign-in-1"}
    opened = await ctx.render(kind="url", message="Sign in to GitHub to connect it.", value=page)
    if not opened.accepted:
        await ctx.say(f"Not opened: {opened.action} {opened.text}".strip())
        return
    done = await ctx.render(
        kind="url-wait", message="Finish signing in on the page that opened.", value=page
    )
    await ctx.say(f"Signed in: {done.action}.")


@agent("test-connection", name="Test connection", listed=False)
async def needs_connection(ctx, message: str) -> None:
    """Ask for the person's Demo connection and use it (saying only a digest of the token)."""
    import hashlib

    answer = await ctx.request_connection("demo", reason="I need your Demo account to go on.")
    if not answer.accepted:
        await ctx.say(f"Not connected ({answer.action}).")
        return
    credential = await ctx.connection(answer)
    digest = hashlib.sha256(credential["token"].encode()).hexdigest()
    await ctx.say(f"Using “{answer.content['label']}”: token sha256 {digest}")


RELEASE = {
    "type": "object",
    "properties": {"version": {"type": "string", "title": "Version"}},
    "required": ["version"],
}


@agent("test-routed", name="Test routed", listed=False)
async def routed(ctx, message: str) -> None:
    """Ask whoever the message names (comma-separated), e.g. "group:release-managers"."""
    names = [name.strip() for name in message.split(",")]
    answer = await ctx.elicit("Which version should I release?", RELEASE, ask=names)
    if answer.accepted:
        await ctx.say(f"Releasing {answer.content['version']}.")
    else:
        await ctx.say(f"Not releasing: {answer.text or answer.action}")


@agent("test-release-bot", name="Release bot", listed=False)
async def release_bot(ctx, message: str) -> None:
    """Ask which version to release of whoever its configuration routes questions to."""
    answer = await ctx.elicit("Which version should I release?", RELEASE)
    if answer.accepted:
        await ctx.say(f"Releasing {answer.content['version']}.")
    else:
        await ctx.say("Not releasing.")


@agent("test-routed-approval", name="Test routed approval", listed=False)
async def routed_approval(ctx, message: str) -> None:
    """Deploy after an approval: first one the owner may grant for the conversation, then
    one that only the release managers may give."""
    if message == "grant":
        approved = await ctx.confirm("Deploy?", action="deploy")
    else:
        approved = await ctx.confirm(
            "Deploy?", action="deploy", ask=["group:release-managers"], requires_other=True
        )
    await ctx.say("Deploying." if approved else "Not deploying.")


@agent("test-escalating", name="Test escalating", listed=False)
async def escalating(ctx, message: str) -> None:
    """Ask bob; after a minute unanswered, ask the release managers too."""
    answer = await ctx.elicit(
        "Which version should I release?",
        RELEASE,
        ask=["user:bob"],
        escalate_after=60,
        escalate_to=["group:release-managers"],
    )
    await ctx.say(f"Releasing {answer.content['version']}." if answer.accepted else "Not now.")


FILES = {
    "type": "object",
    "properties": {
        "log": {
            "type": "string",
            "format": "data-url",
            "title": "Failing log",
            "x-ui": {"accept": ["text/plain"], "maxSize": 2000},
        },
        "screenshots": {
            "type": "array",
            "title": "Screenshots",
            "items": {"type": "string", "contentMediaType": "image/*"},
            "x-ui": {"maxFiles": 2},
        },
        "ticket": {"type": "string", "title": "Ticket"},
    },
    "required": ["log"],
}


@agent("test-file-reader", name="Test file reader", listed=False)
async def file_reader(ctx, message: str) -> None:
    answer = await ctx.elicit("Attach the failing log.", FILES)
    if not answer.accepted:
        await ctx.say(f"No log then ({answer.action}).")
        return
    log = await ctx.open_file(answer.content["log"])
    first = log.content.decode().splitlines()[0]
    await ctx.say(f"Read {log.name} ({log.size} bytes, {log.type}): {first}")


def _look_up_order(order: str) -> dict:
    """Find the order; in a live server with TEST_MARKER_DIR, wait until the test releases it
    (so a browser sees the step while it runs)."""
    if marker_dir := os.environ.get("TEST_MARKER_DIR"):
        wait_for(lambda: (Path(marker_dir) / "release").exists(), timeout=60, interval=0.02)
    return {"order": order, "total": 1200}


def _charge(order: str, api_key: str, amount: int) -> dict:
    raise RuntimeError(f"card declined for {order} (api_key={api_key})")


@agent("test-steps", name="Test steps", listed=False)
async def visible_steps(ctx, message: str) -> None:
    """A lookup step, then a charge that fails: caught, or (message "crash") ending the turn."""
    found = await ctx.step("look up the order", _look_up_order, message)
    try:
        await ctx.step("charge the card", _charge, found["order"], CARD_KEY, found["total"])
    except RuntimeError:
        if message == "crash":
            raise
        await ctx.say("The card was declined, so nothing was charged.")


HIDDEN_CALLS: list[str] = []


def _remember(what: str) -> dict:
    HIDDEN_CALLS.append(what)
    if what == "fail":
        raise ValueError("nothing to remember")
    return {"remembered": what}


@agent("test-hidden-steps", name="Test hidden steps", listed=False)
async def hidden_steps(ctx, message: str) -> None:
    """Bookkeeping steps (not shown) around a question: kept, and not run again on replay."""
    kept = await ctx.step("remember the message", _remember, message, shown=False)
    await ctx.elicit("Go on?", NAME)
    try:
        await ctx.step("remember a failure", _remember, "fail", shown=False)
    except ValueError as error:
        await ctx.say(f"{kept['remembered']}: {error}")

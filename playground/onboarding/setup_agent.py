"""The setup agent: turns a description into a configured agent, asking about what is unclear.

The whole interview runs inside the turn of the person's message: every answer is a recorded
call of that turn, so a reload (or a restart) replays to the pending question with the earlier
answers as chips. The draft is also kept on the draft agent after every answer, so a later
turn, after Cancel for example, carries on from it instead of starting over.
"""

from __future__ import annotations

from asgiref.sync import sync_to_async

from elicitation.kinds.config_card import ConfigRules, register_validator
from elicitation.secrets import REDACTED
from elicitation.zones import zone_of
from playground.chat import chat_header
from playground.chat.push import push_html
from playground.onboarding import answerers, drafts, model_setup, planner, summary
from playground.onboarding.questions import (
    CONFIG_CONTROLS,
    config_layout,
    config_problems,
    config_schema,
    config_to_form_values,
    tools_summary,
)
from playground.runs.agents import agent

# The first call of every setup turn; it marks the turn as the wizard's (see is_setup_turn).
READ_STEP = "onboarding: read the description"
READ_CARD_STEP = "onboarding: read the card"

SECRET_POINTER = (
    "I removed what looked like a secret from your message before saving it. Accounts are "
    "connected on your Connections page (/connections/), or when an agent asks with a "
    "connection card: the credential is kept encrypted there and agents get a reference, "
    "never the key pasted into a chat."
)
NOT_UNDERSTOOD = "I could not tell what the agent should do from that, so let me ask step by step."
KEPT_AS_DRAFT = (
    "Okay, I kept this as a draft. Send a message here whenever you want to carry on, "
    "or delete the draft from the home page."
)
MODEL_FAILED = "{reason} So let me ask step by step instead."
CONNECT_REASON = (
    "{agent} works with {platform} through {server}, which uses your own {service} "
    "connection. Connect it now and {agent} can work from its first run."
)
CONNECT_LATER = "Not connected: {agent} will ask for your {services} when it first needs {it}."
PAUSED_UNTIL_READY = (
    "Its schedule is paused until then: once it has what it lacks, press **Resume** on its page."
)
CARD_MESSAGE = (
    "Here is the agent I will create. Accept to create it, Edit to change anything, "
    "or Cancel to keep it as a draft."
)


def _start_turn(agent_id: int, text: str, home_timezone: str) -> dict:
    saved = drafts.saved_draft(agent_id)
    draft = planner.read_description(text, saved) | {"home_timezone": home_timezone}
    drafts.save_draft(agent_id, draft)
    return {"draft": draft, "resumed": saved is not None}


def _record_answer(agent_id: int, draft: dict, slot: str, content: dict) -> dict:
    updated = planner.read_answer(draft, slot, content)
    drafts.save_draft(agent_id, updated)
    return updated


async def is_setup_turn(ctx) -> bool:
    """Return whether this turn began while the agent was still being set up."""
    return ctx.started_step(0) == READ_STEP


PLAN_STEP = "onboarding: plan the next question"
CONFIG_VALIDATOR = "agent-config"
register_validator(
    CONFIG_VALIDATOR, ConfigRules(config_problems, config_layout, controls=CONFIG_CONTROLS)
)


@agent(
    "setup",
    name=drafts.SETUP_NAME,
    description=drafts.SETUP_DESCRIPTION,
    listed=False,
)
async def setup(ctx, message: str) -> None:
    agent_id = ctx.agent.pk
    zone = zone_of(ctx.conversation.owner).key
    started = await ctx.step(READ_STEP, _start_turn, agent_id, message, zone, shown=False)
    draft = started["draft"]
    if REDACTED in message:
        await ctx.say(SECRET_POINTER)
    setup_model = await ctx.step("onboarding: the setup model", model_setup.chosen, shown=False)
    config = None
    if setup_model:
        outcome = await model_setup.propose(ctx, setup_model, message, draft)
        if outcome.get("stopped"):
            await ctx.say(KEPT_AS_DRAFT)
            return
        if "failed" in outcome:
            await ctx.say(MODEL_FAILED.format(reason=outcome["failed"]))
        else:
            config = outcome["config"]
            await ctx.step(
                "onboarding: keep the proposal", _keep_proposal, agent_id, config, shown=False
            )
    if config is None and not started["resumed"] and planner.understood_nothing(draft):
        await ctx.say(NOT_UNDERSTOOD)

    while True:
        if config is None:
            draft = await _interview(ctx, agent_id, draft)
            if draft is None:
                await ctx.say(KEPT_AS_DRAFT)
                return
            config = planner.proposed_config(draft)
        missing = await ctx.step(
            "onboarding: what the agent lacks",
            _what_it_lacks,
            config,
            setup_model,
            ctx.user.pk,
            shown=False,
        )
        card = await ctx.render(
            kind="config-card",
            message=CARD_MESSAGE,
            data_schema=config_schema(config),
            value=config_to_form_values(config),
            allowed_actions=["accept"],
            details=_card_details(config, setup_model, missing),
            validator=CONFIG_VALIDATOR,
        )
        if not card.accepted:
            await ctx.say(KEPT_AS_DRAFT)
            return
        verdict = await ctx.step(
            READ_CARD_STEP, planner.read_card, config, card.content, shown=False
        )
        if "config" in verdict:
            break
        draft, config = verdict["draft"], None

    config = verdict["config"]
    answered_by = await _who_answers(ctx, setup_model)
    not_connected = await _connect(ctx, config, answered_by)
    lacking = await ctx.step(
        "onboarding: what the agent lacks now",
        _lacks_for,
        config,
        answered_by,
        ctx.user.pk,
        shown=False,
    )
    created = await ctx.step(
        "onboarding: create the agent",
        drafts.create_agent,
        agent_id,
        config,
        answered_by,
        bool(lacking),
        shown=False,
    )
    await ctx.say(_created(created, config, lacking))
    if not_connected:
        await ctx.say(_connect_later(created["name"], not_connected))
    # Every open tab shows the agent's page header (its Edit link, its schedule panel...),
    # at the agent's own address.
    header = await sync_to_async(chat_header.render_created)(ctx.conversation.pk, ctx.user)
    await push_html(ctx.conversation.pk, header)


def _created(created: dict, config: dict, lacking: list[str]) -> str:
    """Say what the new agent does; or, when it cannot work yet, what it will do once it can,
    what it lacks, and that its schedule waits, paused, until then."""
    name, export = f"**{created['name']}**", created["export_url"]
    download = f"[download its configuration as JSON]({export})"
    if not lacking:
        return (
            f"{name} is ready. It {summary.what_it_does(config)}. Send it a message below to "
            f"try it, or {download}."
        )
    lines = "\n".join(f"- {line}" for line in lacking)
    after = f"Send it a message below to see what it says, or {download}."
    if summary.runs_on_its_own(config):
        after = f"{PAUSED_UNTIL_READY} {after}"
    return (
        f"{name} is made, but it cannot work yet. Once it can, it will "
        f"{summary.what_it_does(config, future=True)}. It lacks:\n\n{lines}\n\n{after}"
    )


def _lacks_for(config: dict, answered_by: str, user_id: int) -> list[str]:
    return model_setup.missing(
        config, answerers.kind_for(answered_by, drafts.CONFIGURED_KIND), user_id
    )


def _keep_proposal(agent_id: int, config: dict) -> None:
    drafts.save_draft(agent_id, planner.draft_from_config(config))


def _what_it_lacks(config: dict, setup_model: str | None, user_id: int) -> list[str]:
    # A model on offer answers the agent by default (see _who_answers); else its own rules.
    kind = answerers.kind_for(setup_model or answerers.OWN_RULES, drafts.CONFIGURED_KIND)
    return model_setup.missing(config, kind, user_id)


def _card_details(config: dict, setup_model: str | None, missing: list[str]) -> dict[str, str]:
    details = {"Tools (from the platform and destination)": tools_summary(config)}
    if setup_model:
        details["Answered by"] = answerers.label_for(setup_model)
    if missing and summary.runs_on_its_own(config):
        missing = [*missing, "Until then its schedule stays paused."]
    details["Before it can work" if missing else "Ready to work"] = (
        " ".join(missing) or "Its model and its platform's MCP server are configured."
    )
    return details


async def _who_answers(ctx, setup_model: str | None) -> str:
    """Ask whether a model should answer the new agent, when any is on offer."""
    offered = await ctx.step("onboarding: models on offer", answerers.offered, shown=False)
    if not offered:
        return answerers.OWN_RULES
    answer = await ctx.elicit(
        answerers.QUESTION, answerers.schema(offered, setup_model), allowed_actions=["accept"]
    )
    return answer.content.get("answered_by", answerers.OWN_RULES)


async def _connect(ctx, config: dict, answered_by: str) -> list[str]:
    """Ask for the connections the new agent's platform servers take and the person lacks,
    each with a connection card (the credential goes to the vault, never into this chat);
    return the titles of those not connected. Asked here, before the agent is created, so
    it can work at once; a declined one is asked again by the agent when it first needs it."""
    needed = await ctx.step(
        "onboarding: the connections it uses",
        _connections_it_uses,
        config,
        answered_by,
        ctx.user.pk,
        shown=False,
    )
    not_connected = []
    for service in needed:
        if await ctx.find_connection(service["service"]) is not None:
            continue
        reason = CONNECT_REASON.format(
            agent=config["name"],
            platform=service["platform"],
            server=service["server"],
            service=service["title"],
        )
        response = await ctx.request_connection(
            service["service"], reason=reason, for_agent=config["name"]
        )
        if not response.accepted:
            not_connected.append(service["title"])
    return not_connected


def _connections_it_uses(config: dict, answered_by: str, user_id: int) -> list[dict[str, str]]:
    kind = answerers.kind_for(answered_by, drafts.CONFIGURED_KIND)
    return model_setup.connections(config, kind, user_id)


def _connect_later(agent: str, titles: list[str]) -> str:
    if len(titles) == 1:
        return CONNECT_LATER.format(agent=agent, services=f"{titles[0]} connection", it="it")
    named = f"{', '.join(titles[:-1])} and {titles[-1]} connections"
    return CONNECT_LATER.format(agent=agent, services=named, it="them")


async def _interview(ctx, agent_id: int, draft: dict) -> dict | None:
    """Ask one question per missing slot; return the complete draft, or None if stopped."""
    while True:
        question = await ctx.step(
            "onboarding: plan the next question", planner.plan_question, draft, shown=False
        )
        if question is None:
            return draft
        payload = question["payload"]
        answer = await ctx.elicit(
            payload["message"], payload["requestedSchema"], allowed_actions=["accept"]
        )
        if not answer.accepted:
            return None
        draft = await ctx.step(
            "onboarding: read the answer",
            _record_answer,
            agent_id,
            draft,
            question["slot"],
            answer.content,
            shown=False,
        )

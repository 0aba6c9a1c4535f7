"""The onboarding wizard's setup agent, answered by a model: it reads, asks and proposes.

The model gets the person's description (and what the wizard's rules read in it), asks its
clarifying questions with `request_input` (a form in the chat, one at a time), and ends with
`propose_configuration`, the card's fields as arguments. Each proposal is checked by the
wizard's own code (`planner.check_proposal`, the checks of an edited card): a refused one goes
back to the model as the tool's result, with the checker's words, and the model corrects it.
Every model request is a recorded step of the turn, its failures too, so a replay never asks
the model again and the rules take over the same way each time.

Imported at the first setup a model answers (`agent.propose_setup`), as `turns` is at the
first turn: pydantic_ai is not imported when Django starts.
"""

from typing import Any

from pydantic_ai import Agent, DeferredToolRequests, ModelRetry, RunContext, ToolOutput
from pydantic_ai.exceptions import UnexpectedModelBehavior
from pydantic_ai.tool_manager import ToolManager

from playground.llm_agents import providers
from playground.llm_agents.recording import RecordedFailure, RecordedModel
from playground.llm_agents.tools import REQUEST_INPUT_TOOL
from playground.llm_agents.turns import ask_the_person, explain
from playground.onboarding import catalog, planner
from playground.onboarding.questions import config_to_form_values
from playground.runs.runtime import TurnContext

PROPOSE = "propose_configuration"
MAX_PROPOSALS = 4  # a model still wrong after three corrections: the rules take over


def _values(options) -> str:
    return ", ".join(f'"{value}"' for value in catalog.values(options))


INSTRUCTIONS = f"""\
You set up a new agent for the person, from their description of what it should do. You
do not do the work yourself.

1. Read the description. Where something needed is missing or ambiguous (which platform, how
   often, which time zone, where results go), ask the person with request_input: one question
   per call, one call at a time, each field with a "default" holding your best guess. Do not
   ask about what the description already says. Never ask for a password, token or key:
   when the agent's platform needs the person's account, the wizard asks for it with a
   connection card after the person accepts the configuration.
2. Then call {PROPOSE} with the whole configuration. If its result lists problems, fix exactly
   those and call {PROPOSE} again.

Values {PROPOSE} accepts:
- platform (where the agent reads its work): one of {_values(catalog.PLATFORMS)}.
- trigger_kind: one of {_values(catalog.TRIGGERS)}, with what that kind needs:
  every_n_minutes: trigger_minutes (5 to 1440); daily and weekdays: trigger_time ("HH:MM",
  24-hour); times_a_day: trigger_times ("09:00, 16:00") and trigger_weekdays_only; weekly:
  trigger_days and trigger_time; every_n_weeks: trigger_weeks (2 to 12), trigger_days and
  trigger_time ("every other Monday" is every_n_weeks with 2 weeks on monday); monthly:
  trigger_day_of_month (one of {_values(catalog.MONTH_DAYS)}) and trigger_time.
  trigger_days are {_values(catalog.DAYS)}.
- timezone: an IANA name such as "Europe/Berlin" ("UTC" when the schedule has no clock time).
- destination_kind: one of {_values(catalog.DESTINATIONS)}; destination_target is the Slack
  "#channel" or the email address, empty for the others.
- name: a short name for the agent; purpose: one sentence; instructions: what the agent should
  do on each run, in the second person ("Read ... and post ...")."""

PROPOSE_DESCRIPTION = (
    "Propose the new agent's whole configuration; the person then sees it as a card to accept "
    "or edit. The result says what is wrong when a value cannot be used."
)


def propose_configuration(
    ctx: RunContext[TurnContext],
    name: str,
    platform: str,
    trigger_kind: str,
    timezone: str,
    destination_kind: str,
    purpose: str = "",
    instructions: str = "",
    trigger_time: str | None = None,
    trigger_times: str | None = None,
    trigger_weekdays_only: bool | None = None,
    trigger_minutes: int | None = None,
    trigger_weeks: int | None = None,
    trigger_days: list[str] | None = None,
    trigger_day_of_month: str | None = None,
    destination_target: str | None = None,
) -> dict[str, Any]:
    """Return the checked configuration; a refused one goes back to the model with the reasons."""
    values = {key: value for key, value in locals().items() if key != "ctx" and value is not None}
    checked = planner.check_proposal(values)
    if "problems" in checked:
        problems = "; ".join(f"{field}: {text}" for field, text in checked["problems"].items())
        raise ModelRetry(f"This configuration cannot be used: {problems}")
    return checked["config"]


def prompt(message: str, draft: dict[str, Any]) -> str:
    """Return the first prompt: the description, and what the rules read in it."""
    read = config_to_form_values(planner.proposed_config(draft))
    if not draft.get("timezone"):
        read.pop("timezone", None)  # "UTC" only stands in for a zone nobody named
    hints = "\n".join(f"- {key}: {value}" for key, value in read.items())
    return (
        f"The person's description:\n{message}\n\n"
        "What a rule-based reader found in it (possibly incomplete or wrong):\n"
        f"{hints or '- nothing'}"
    )


async def propose(ctx: TurnContext, choice: str, message: str, draft: dict) -> dict[str, Any]:
    """Read, ask and propose with the model `choice`; see model_setup.ModelSetup.propose."""
    provider_name, model_name = choice.split("/", 1)
    try:
        provider = providers.find(provider_name, model_name)
    except LookupError as error:
        return {"failed": str(error)}
    label = provider.describe()
    model = RecordedModel(
        providers.build_model(provider, model_name),
        ctx,
        explain_failure=lambda error: explain(error, label),
    )
    setup = Agent(
        model,
        output_type=[
            ToolOutput(
                propose_configuration,
                name=PROPOSE,
                description=PROPOSE_DESCRIPTION,
                max_retries=MAX_PROPOSALS - 1,
            ),
            DeferredToolRequests,
        ],
        instructions=INSTRUCTIONS,
        deps_type=TurnContext,
        tools=[REQUEST_INPUT_TOOL],
    )
    text, answers, messages = prompt(message, draft), None, None
    while True:
        try:
            with ToolManager.parallel_execution_mode("sequential"):
                result = await setup.run(
                    text, message_history=messages, deferred_tool_results=answers, deps=ctx
                )
        except RecordedFailure as failure:
            return {"failed": str(failure)}
        except UnexpectedModelBehavior as error:
            return {"failed": f"{label} did not propose a configuration I could use ({error})."}
        if not isinstance(result.output, DeferredToolRequests):
            return {"config": result.output}
        text, messages = None, result.all_messages()
        answers = await ask_the_person(ctx, result.output)
        if any(_cancelled(envelope) for envelope in answers.calls.values()):
            return {"stopped": True}


def _cancelled(envelope) -> bool:
    return isinstance(envelope, dict) and envelope.get("action") == "cancel"

"""The bench agent: one typed question per turn, then a reply that quotes the answer."""

from playground.agents import agent
from playground.builtin_agents.deploy_assistant import ENVIRONMENTS

# The Deploy assistant's first question: a realistic select plus a text field.
QUESTION = ENVIRONMENTS


@agent("bench-ask", name="Bench: one question", description="Asks one question per message.")
async def bench_ask(ctx, message: str) -> None:
    answer = await ctx.elicit(f"Question {message}: which environment?", QUESTION)
    await ctx.say(f"Reply {message}: {answer.content.get('environment', answer.action)}.")

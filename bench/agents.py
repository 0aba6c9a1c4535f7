"""The bench agent: one typed question per turn, then a reply that quotes the answer."""

from playground.agents import agent

QUESTION = {
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
        "version": {"type": "string", "title": "Version", "default": "main", "maxLength": 40},
    },
    "required": ["environment"],
}


@agent("bench-ask", name="Bench: one question", description="Asks one question per message.")
async def bench_ask(ctx, message: str) -> None:
    answer = await ctx.elicit(f"Question {message}: which environment?", QUESTION)
    await ctx.say(f"Reply {message}: {answer.content.get('environment', answer.action)}.")

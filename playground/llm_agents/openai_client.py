"""The OpenAI SDK's client, sending a chat request's messages and tools as they are given.

Before the SDK sends a request it walks every parameter against its type hints, to rename
aliased keys and format dates and files. Chat completion params have none of those: the walk
returns what it was given, at a cost that grows with the conversation (bench/llm_overhead.py).
The SDK merges its public `extra_body` into the request's JSON after
the walk, so the messages and tools go there instead, and the JSON sent is the same.
openai/openai-python#3616 measured the walk; anthropic-sdk-python#1195 goes round it this way.
"""

from functools import cached_property

from openai import AsyncOpenAI, NotGiven, Omit
from openai.resources.chat import AsyncChat
from openai.resources.chat.completions import AsyncCompletions

UNWALKED = ("messages", "tools")


class ChatClient(AsyncOpenAI):
    """`AsyncOpenAI`, whose chat completions skip the walk over their messages and tools."""

    @cached_property
    def chat(self) -> AsyncChat:
        chat = AsyncChat(self)
        chat.completions = _Completions(self)
        return chat


class _Completions(AsyncCompletions):
    async def create(self, **params):
        given = {name: params[name] for name in UNWALKED if _given(params.get(name))}
        if given:
            # The placeholder is walked instead (the SDK requires the argument); the request
            # carries `extra_body`'s, and any `extra_body` of the caller's still wins, as it did.
            params |= {"messages": [], "tools": Omit()}
            params["extra_body"] = given | (params.get("extra_body") or {})
        return await super().create(**params)


def _given(value) -> bool:
    return value is not None and not isinstance(value, (NotGiven, Omit))

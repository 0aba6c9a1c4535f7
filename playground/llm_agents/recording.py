"""Each model request of a turn is a recorded step, streamed into the chat as it arrives.

`RecordedModel` wraps the provider's model. A request that was recorded returns its recorded
response (serialised with the library's own `ModelMessagesTypeAdapter`), so a replay after an
answer or a restart never calls the model again; only a request without a record goes out. While
it streams, the reply so far is stored on the turn and pushed to the open tabs: the first words
as they arrive (with the words arriving in the same burst), then at most every
LIVE_TEXT_SECONDS. A reload or a reconnect shows the text so far.
"""

import asyncio
from functools import partial

from pydantic_ai.exceptions import ModelAPIError, UnexpectedModelBehavior
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter, ModelResponse
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.settings import ModelSettings

from playground.chat.live_text import LIVE_TEXT_SECONDS, LiveText
from playground.runs.runtime import TurnContext
from playground.runs.steps import Outcome, describe_mapping

# A model streams its tokens milliseconds apart at the very fastest: words closer together came
# in one burst, and are shown together (a reply that arrives whole goes straight to its message).
BURST_SECONDS = 0.002


class RecordedFailure(Exception):
    """A model request failed, and the failure is recorded: a replay fails the same way."""


class RecordedModel(WrapperModel):
    """The provider's model, with every request recorded as a step of the turn.

    With `explain_failure`, a request the provider fails is recorded too (as that text) and
    raises RecordedFailure: a caller that carries on without the model (the setup agent's
    rules) sees the same failure on every replay, never a late answer out of step."""

    def __init__(self, wrapped, ctx: TurnContext, *, explain_failure=None):
        super().__init__(wrapped)
        self.ctx = ctx
        self.live = LiveText(ctx.turn)
        self.explain_failure = explain_failure

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        said: list[str] = []
        recorded = await self.ctx.step(
            f"model request ({self.model_name})",
            self._stream,
            messages,
            model_settings,
            model_request_parameters,
            arguments=dict(model_settings or {}),
            describe=describe_response,
            start=self.live.thinking,  # shown as the request goes out, with the step
            finish=partial(self._finish, said),
        )
        if isinstance(recorded, dict):
            raise RecordedFailure(recorded["failed"])
        [response] = ModelMessagesTypeAdapter.validate_python(recorded)
        if response.text and not said:
            await self.ctx.say(response.text)  # a replay: said by the run that recorded it
        return response

    def _finish(self, said: list[str], recorded: list | dict) -> str | None:
        """End the model's step, in the hop that records it: the streamed reply cleared and
        saved as the agent's message (each was a hop of its own, one after the other,
        between the model's last byte and the reply)."""
        shown = [self.live.cleared()]
        if isinstance(recorded, list):
            [response] = ModelMessagesTypeAdapter.validate_python(recorded)
            if response.text:
                said.append(response.text)
                shown.append(self.ctx.say_now(response.text))
        return "".join(filter(None, shown)) or None

    async def _stream(self, messages, model_settings, model_request_parameters) -> list | dict:
        if self.explain_failure is None:
            return await self._stream_reply(messages, model_settings, model_request_parameters)
        try:
            return await self._stream_reply(messages, model_settings, model_request_parameters)
        except (ModelAPIError, UnexpectedModelBehavior) as error:
            return {"failed": self.explain_failure(error)}

    async def _stream_reply(self, messages, model_settings, model_request_parameters) -> list:
        async with self.wrapped.request_stream(
            messages, model_settings, model_request_parameters
        ) as stream:
            response = await self._follow(stream)
        return dump_messages([response])

    async def _follow(self, stream) -> ModelResponse:
        """Read the stream to its end, showing the reply so far; return the whole response."""
        events = aiter(stream)
        next_event = asyncio.ensure_future(anext(events))
        text = ""
        try:
            while True:
                # The first words wait BURST_SECONDS for the words arriving with them. Else
                # wake every LIVE_TEXT_SECONDS: the last words of a burst are shown even when
                # the model pauses, and a Stop is seen while it is silent.
                first_words = text and not self.live.text
                timeout = BURST_SECONDS if first_words else LIVE_TEXT_SECONDS
                done, _ = await asyncio.wait({next_event}, timeout=timeout)
                if done:
                    if isinstance(next_event.exception(), StopAsyncIteration):
                        break
                    next_event.result()  # a failed stream raises here
                    next_event = asyncio.ensure_future(anext(events))
                    text = stream.get().text or ""
                await self.live.update(text, arriving=bool(done))
        finally:
            next_event.cancel()  # stopped mid-stream: nobody waits for the next event
        return stream.get()


def describe_response(recorded: list) -> Outcome:
    """Return what a model request came to, as its step shows it: the reply's first words,
    or the tools the model calls."""
    [response] = ModelMessagesTypeAdapter.validate_python(recorded)
    calls = [
        f"{call.tool_name}({describe_mapping(call.args_as_dict())})" for call in response.tool_calls
    ]
    if calls:
        return Outcome("Calls " + ", ".join(calls))
    return Outcome(f"Replied: {response.text}" if response.text else "Replied with nothing.")


def dump_messages(messages: list[ModelMessage]) -> list:
    """Return messages as JSON data, in the library's own format."""
    return ModelMessagesTypeAdapter.dump_python(messages, mode="json")

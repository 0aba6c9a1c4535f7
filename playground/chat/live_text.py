"""A turn's reply so far, stored on the turn and pushed to its open tabs as it streams: the
first words at once, then at most every LIVE_TEXT_SECONDS. A reload or a reconnect shows the
text so far. Used by every source whose agent streams its text (a model, an AG-UI agent).
"""

import time

from asgiref.sync import sync_to_async

from playground.chat import fragments
from playground.chat.push import push_html
from playground.runs.models import Turn
from playground.runs.runtime import Suspended

LIVE_TEXT_SECONDS = 0.25
STOP_CHECK_SECONDS = 1.0


class TurnStopped(Suspended):
    """The person stopped the turn (it lost its run token): the run lets go, holding nothing."""

    step_outcome = "Stopped: you stopped this reply."


class LiveText:
    """A turn's model reply so far: stored and pushed, throttled."""

    def __init__(self, turn: Turn):
        self.turn = turn
        self.text = ""
        self.shown_at = 0.0
        self.pushed: tuple[str, bool] | None = None

    async def update(self, text: str, *, arriving: bool = False) -> None:
        """Show the reply so far: the first words at once, then at most every
        LIVE_TEXT_SECONDS (and look for a Stop at least every STOP_CHECK_SECONDS, even while
        the model is silent). `arriving`: more words are coming in with these (the stream has
        not paused), so the first words wait for the pause or the throttle."""
        since = time.monotonic() - self.shown_at
        first_words = text and not self.text and not arriving
        if first_words or (
            since >= LIVE_TEXT_SECONDS and (text != self.text or since >= STOP_CHECK_SECONDS)
        ):
            await self.show(text)

    async def show(self, text: str, *, thinking: bool = True) -> None:
        """Store and push `text` now; raise TurnStopped if the turn is no longer this run's."""
        html = await sync_to_async(self._store)(text, thinking)
        if html is not None:
            await push_html(self.turn.conversation_id, html)

    def thinking(self) -> str | None:
        """Store and return "Thinking…" (no reply yet), off the event loop: a step's `start`;
        raise TurnStopped if the turn is no longer this run's."""
        return self._store("", thinking=True)

    def cleared(self, _result: object = None) -> str | None:
        """Store that no reply is streaming (it becomes a message next) and return the
        fragment that clears the tabs' (None: they show none), off the event loop: a step's
        `finish` (given the step's result, not needed here); raise TurnStopped if the turn is
        no longer this run's."""
        return self._store("", thinking=False)

    def _store(self, text: str, thinking: bool) -> str | None:
        self.text, self.shown_at = text, time.monotonic()
        shown = (text, thinking)
        html = _store_on_turn(self.turn, text, thinking, shown != self.pushed)
        self.pushed = shown
        return html


def _store_on_turn(turn: Turn, text: str, thinking: bool, render: bool) -> str | None:
    """Store the reply so far and return its fragment (None: only looking for a Stop, the tabs
    show this already), in one hop off the event loop; raise TurnStopped if the turn is no
    longer this run's."""
    ours = Turn.objects.filter(pk=turn.pk, run_token=turn.run_token, status=Turn.Status.RUNNING)
    if not ours.update(partial_text=text):
        raise TurnStopped(turn.pk)
    turn.partial_text = text
    return fragments.render_live_text(turn, thinking=thinking) if render else None

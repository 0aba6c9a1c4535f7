"""Run and resume turns. The Turn table is the queue: a `queued` turn is work to do.

A turn is queued in the same transaction that makes it runnable (the person's message, or the
settlement of its last open question), so no crash can leave work that nobody will pick up.
The turns job (`TurnRunner`) claims queued turns and runs up to `concurrency` of them at once
on one event loop: inside the server in the embedded default, in `manage.py worker` in
scale-out.
"""

import asyncio
import logging
import traceback
import uuid
from datetime import timedelta

from asgiref.sync import async_to_sync, sync_to_async
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from elicitation.database_hop import in_db
from elicitation.secrets import redact_secrets
from playground import jobs
from playground.chat import fragments
from playground.chat.push import push_html
from playground.jobs.claim import claim
from playground.runs.agents import get_agent_spec
from playground.runs.models import Turn
from playground.runs.runtime import ExplainedFault, Recorded, Suspended, TurnContext

logger = logging.getLogger(__name__)


# --- one turn -------------------------------------------------------------------------------


def claim_and_load(limit: int) -> list[tuple[str, Turn, Recorded]]:
    """Claim up to `limit` queued turns, oldest first; return (run token, turn, records) for
    each, in one hop off the event loop."""
    queued = Turn.objects.filter(status=Turn.Status.QUEUED)
    token, ids = claim(
        queued,
        order_by=("updated_at", "pk"),
        limit=limit,
        token_field="run_token",
        status=Turn.Status.RUNNING,
        heartbeat_at=timezone.now(),
        resume_requested=False,
    )
    return [(token, *_load(pk)) for pk in ids]


async def execute_turn(turn_id: int) -> None:
    """Claim one queued turn and run it (what a runner does, for commands and tests)."""
    token = uuid.uuid4().hex
    claimed = await Turn.objects.filter(pk=turn_id, status=Turn.Status.QUEUED).aupdate(
        status=Turn.Status.RUNNING,
        run_token=token,
        heartbeat_at=timezone.now(),
        resume_requested=False,
    )
    if claimed:
        await run_claimed(turn_id, token)


# A run that ends sooner shows its outcome without a flash of "working" first (an answer to
# a quick agent); a slower one shows the agent working, and the Stop button, from then on.
WORKING_NOTICE_SECONDS = 0.15


async def run_claimed(
    turn_id: int, token: str, loaded: tuple[Turn, Recorded] | None = None
) -> None:
    """Run a claimed turn until it is done, failed or waiting for the person; `loaded` is
    the turn and its records when the claim read them already."""
    turn, recorded = loaded or await sync_to_async(_load)(turn_id)
    notices: list[asyncio.Task] = []
    timer = asyncio.get_running_loop().call_later(
        WORKING_NOTICE_SECONDS, lambda: notices.append(asyncio.create_task(_push_working(turn)))
    )
    heartbeat = asyncio.create_task(_heartbeat(turn_id, token))
    try:
        while (outcome := await _replay(turn, token, recorded)) == "waiting":
            if await sync_to_async(_park)(turn_id, token):
                break
            # An answer came in meanwhile: replay again, past it.
            recorded = await sync_to_async(Recorded.read)(turn)
    finally:
        timer.cancel()
        heartbeat.cancel()
    status = await sync_to_async(_finish)(turn, token, done=outcome == "done")
    # A "working" line on its way goes out before the outcome (a failed one: the outcome shows).
    await asyncio.gather(*notices, return_exceptions=True)
    await push_html(turn.conversation_id, status)


def _load(turn_id: int) -> tuple[Turn, Recorded]:
    """Return the turn and what it recorded so far, in one hop off the event loop."""
    # The owner's zone comes along: every part the run shows is rendered in it.
    turn = Turn.objects.select_related("conversation__agent", "conversation__owner__time_zone").get(
        pk=turn_id
    )
    return turn, Recorded.read(turn)


async def _push_working(turn: Turn) -> None:
    # Read, not assumed: by now the run may be waiting on a question it holds a session for.
    html = await sync_to_async(fragments.render_status)(turn.conversation)
    await push_html(turn.conversation_id, html)


async def _replay(turn: Turn, token: str, recorded: Recorded) -> str:
    turn_id = turn.pk
    ctx = TurnContext(turn, recorded)
    try:
        spec = get_agent_spec(turn.conversation.agent.kind)
        await spec.run(ctx, turn.text)
    except Suspended:
        return "waiting"
    except Exception as error:
        # An error can quote what the agent held (a key in an exception's message): it is
        # redacted before it is shown, logged or kept, and before it is cut to length.
        trace = redact_secrets(traceback.format_exc())[0]
        if isinstance(error, ExplainedFault):
            # One record per fault: the causes' tracebacks are on the admin's turn page.
            summary = redact_secrets(str(error))[0][:500]
            logger.error("agent run failed (turn %s): %s", turn_id, summary)
        else:
            logger.error("agent run failed (turn %s)\n%s", turn_id, trace)
            said = f"The agent stopped with an error: {type(error).__name__}: {error}"
            summary = redact_secrets(said)[0][:500]
        await Turn.objects.filter(pk=turn_id, run_token=token).aupdate(
            status=Turn.Status.FAILED, error=summary, error_trace=trace
        )
        await ctx.report_error(summary)
        return "failed"
    return "done"  # marked by _finish, in the hop that renders the status line


def _finish(turn: Turn, token: str, *, done: bool) -> str:
    """Return the status line as the run ends, marking the turn done first if it is: one hop
    off the event loop for both."""
    if done:
        Turn.objects.filter(pk=turn.pk, run_token=token).update(status=Turn.Status.DONE)
    return fragments.render_status(turn.conversation)


def _park(turn_id: int, token: str) -> bool:
    """Mark the turn waiting; return False if an answer came in meanwhile (replay again)."""
    with transaction.atomic():
        turn = Turn.objects.select_for_update().get(pk=turn_id)
        if turn.run_token != token:
            return True  # another worker took the turn over
        if turn.resume_requested:
            turn.resume_requested = False
            turn.save(update_fields=["resume_requested", "updated_at"])
            return False
        turn.status = Turn.Status.WAITING
        turn.save(update_fields=["status", "updated_at"])
        return True


async def _heartbeat(turn_id: int, token: str) -> None:
    while True:
        await asyncio.sleep(settings.RUN_HEARTBEAT_SECONDS)
        await Turn.objects.filter(pk=turn_id, run_token=token).aupdate(heartbeat_at=timezone.now())


# --- making a turn runnable -------------------------------------------------------------------


def mark_for_resume(turn_id: int) -> None:
    """Inside the caller's transaction: queue a waiting turn, or flag a running one to replay.

    Conditional UPDATEs, tried again if the status changed in between (a run parking at
    that moment): the common case is one query.
    """
    turn = Turn.objects.filter(pk=turn_id)
    waiting, active = Turn.Status.WAITING, (Turn.Status.QUEUED, Turn.Status.RUNNING)
    while True:
        now = timezone.now()
        if turn.filter(status=waiting).update(status=Turn.Status.QUEUED, updated_at=now):
            transaction.on_commit(lambda: turn_queued(turn_id))
            return
        if turn.filter(status__in=active).update(resume_requested=True, updated_at=now):
            return
        if not turn.filter(status__in=(waiting, *active)).exists():
            return  # done or failed: nothing to resume


def on_part_settling(sender, part, **kwargs) -> None:
    """Mark the settled part's turn for resumption, in the settlement's own transaction."""
    mark_for_resume(part.turn_id)


def turn_queued(turn_id: int) -> None:
    """After a commit that queued a turn: get it run.

    Scale-out workers were woken by the commit itself on PostgreSQL (a trigger on the turn
    table, migration 0003), or find the turn at their next poll. Inside the embedded server
    its turns job is woken; with no server at all (management commands, tests driving views)
    the turn runs here and now.
    """
    if settings.JOBS_RUN_IN == "workers":
        return
    if not jobs.wake("turns"):
        async_to_sync(execute_turn)(turn_id)


# --- many turns -------------------------------------------------------------------------------


def requeue_interrupted(*, every_running: bool = False) -> list[int]:
    """Queue again the running turns whose runner died (its heartbeat went stale), or every
    running turn when the caller is the only runner and has just started."""
    running = Turn.objects.filter(status=Turn.Status.RUNNING)
    if not every_running:
        stale_after = timedelta(seconds=settings.RUN_STALE_AFTER_SECONDS)
        running = running.filter(heartbeat_at__lt=timezone.now() - stale_after)
    requeued = []
    for turn_id, token in running.values_list("pk", "run_token"):
        if running.filter(pk=turn_id, run_token=token).update(
            status=Turn.Status.QUEUED, run_token=""
        ):
            requeued.append(turn_id)
    if requeued:
        logger.info("queued %d interrupted turn(s) again: %s", len(requeued), requeued)
    return requeued


class TurnRunner:
    """The turns job: claim queued turns and run up to `concurrency` of them at once, each a
    task of its own; every RECOVERY_SWEEP_SECONDS queue again those whose runner died."""

    def __init__(self, *, concurrency: int, poll_seconds: float):
        self.concurrency = concurrency
        self.poll_seconds = poll_seconds
        self.running: dict[asyncio.Task, tuple[int, str]] = {}
        self.full = False  # the last claim took every free slot
        self._next_sweep = 0.0

    async def step(self) -> float:
        loop = asyncio.get_running_loop()
        if loop.time() >= self._next_sweep:
            self._next_sweep = loop.time() + settings.RECOVERY_SWEEP_SECONDS
            await in_db(requeue_interrupted)()
        free = self.concurrency - len(self.running)
        claimed = await in_db(claim_and_load)(free)
        # Every free slot taken: turns may be left queued, so the next run to end wakes the job.
        self.full = len(claimed) == free
        for token, turn, recorded in claimed:
            task = asyncio.create_task(self._run_one(token, turn, recorded))
            self.running[task] = (turn.pk, token)
        return self.poll_seconds

    async def _run_one(self, token: str, turn: Turn, recorded: Recorded) -> None:
        turn_id = turn.pk
        try:
            await run_claimed(turn_id, token, (turn, recorded))
        except asyncio.CancelledError:
            raise
        except Exception:
            # The runner itself failed (a lost database, say): the heartbeat stops with it and
            # the sweep queues the turn again once it is stale.
            logger.exception("running turn %s failed outside the agent", turn_id)
        finally:
            if self.full:
                jobs.wake("turns")  # a claim may have left turns for lack of a free slot
            self.running.pop(asyncio.current_task(), None)

    async def drain(self, grace_seconds: float) -> None:
        """Let running turns finish within the grace period, and queue the rest again."""
        if self.running:
            await asyncio.wait(list(self.running), timeout=grace_seconds)
        left = dict(self.running)
        for task in left:
            task.cancel()
        if left:
            await asyncio.gather(*left, return_exceptions=True)
            await in_db(_requeue)(list(left.values()))


def _requeue(claims: list[tuple[int, str]]) -> None:
    for turn_id, token in claims:
        Turn.objects.filter(pk=turn_id, run_token=token, status=Turn.Status.RUNNING).update(
            status=Turn.Status.QUEUED, run_token=""
        )
    logger.info("left %d turn(s) queued for the next worker", len(claims))

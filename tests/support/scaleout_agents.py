"""A test-only agent whose first run of a step hangs until the test kills its worker.
Loaded by the scale-out tests through AGENT_MODULES=tests.scaleout_agents.
"""

import asyncio
import os
from pathlib import Path

from playground.runs.agents import agent


def _note_start() -> int:
    """Append this process to the step's start log; return how many starts it holds."""
    log = Path(os.environ["SCALEOUT_STEP_DIR"]) / "started"
    with open(log, "a") as started:
        started.write(f"{os.getpid()}\n")
    return len(log.read_text().split())


async def _slow_step() -> dict:
    if await asyncio.to_thread(_note_start) == 1:
        await asyncio.Event().wait()  # the first run never ends by itself: its worker is killed
    return {"ran_in": os.getpid()}


@agent("slow-step", name="Slow step", description="Runs one slow step, then says where it ran.")
async def slow_step(ctx, message: str) -> None:
    await ctx.say("Starting the slow step.")
    result = await ctx.step("slow", _slow_step)
    await ctx.say(f"Finished the slow step in worker process {result['ran_in']}.")


async def _gate(name: str) -> str:
    """Note that this turn started; before the test's release, wait (on the loop, holding no
    thread) until the worker stops. The test releases the gate before it starts the worker
    that is to get through, so nothing waits for the release itself."""
    folder = Path(os.environ["SCALEOUT_STEP_DIR"])
    await asyncio.to_thread(_append, folder / "gated", name)
    if not (folder / "release").exists():
        async with asyncio.timeout(120):  # the test stops this worker within seconds
            await asyncio.Event().wait()
    return name


def _append(path: Path, line: str) -> None:
    with open(path, "a") as log:
        log.write(f"{line}\n")


@agent("gated", name="Gated", description="Waits until the test lets it finish.")
async def gated(ctx, message: str) -> None:
    await ctx.step("gate", _gate, message)
    await ctx.say(f"Through the gate: {message}.")


@agent("slot-reporter", name="Slot reporter", description="Says which run it is.", listed=False)
async def slot_reporter(ctx, message: str) -> None:
    await ctx.say(f"Ran: {message}")

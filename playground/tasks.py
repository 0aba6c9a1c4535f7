"""Agent runs as `django.tasks` tasks: the same code runs in-process or on separate workers."""

from django.tasks import task

from playground.runtime import execute_turn


@task
async def run_turn(turn_id: int) -> None:
    """Run (or replay) a turn until it finishes or waits for the person."""
    await execute_turn(turn_id)

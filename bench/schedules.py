"""schedules: what 10,000 agents with schedules cost the runners, and how late a slot starts.

1. After a few warm-up slots (every runner up and through its first), with no schedule due
   for a day, every server process idle for `--idle` seconds: its CPU.
2. Baseline delay: SLOTS agents whose schedules fall due in the next minute (two a second, at
   whole seconds, as RFC 5545 rules have them) and nothing else scheduled; for each slot, the
   time from the slot to its run's first word (the bench agent's `ctx.say` at the start of the
   run: the firer woke, claimed the slot, queued the turn, a runner took it and ran it).
3. Add schedules until 10,000 agents have one (`--quick`: 1,000), all due tomorrow, and
   measure the same idle window: the CPU the schedules add while none is due.
4. The same delay again for SLOTS more slots, now among the 10,000.

The rows are written with bulk_create, as the bench process shares the stack's database; a
runner learns of them at its next sweep (RECOVERY_SWEEP_SECONDS), so the first slot is set
well after that. Target: idle CPU added < 0.5 points in each process; p99 delay <= 1 s at
10,000 schedules.
"""

import statistics
import time
from datetime import UTC, datetime, timedelta

from django.conf import settings

from bench.runner import bench_main
from bench.stack import USERNAME, cpu_seconds, wait_until

SLOTS = 120
PER_SECOND = 2


def measure(stack, schedules: int, idle: float) -> dict:
    from django.contrib.auth.models import User

    owner = User.objects.get(username=USERNAME)
    figures: dict = {"schedules": schedules, "slots": SLOTS, "idle_s": idle}
    # Warm up: every runner is up and has fired a slot (a worker's start-up is not idle).
    _delays(owner, "warm", 2 * PER_SECOND * len(stack.processes()))
    none = _idle_cpu(stack, idle)
    base = _delays(owner, "base", SLOTS)
    _add(owner, "idle", schedules - 2 * SLOTS, first=_now() + timedelta(days=1))
    many = _idle_cpu(stack, idle)
    delays = _delays(owner, "many", SLOTS)
    for name in none:
        figures[f"{name}_cpu_pct_none"] = none[name]
        figures[f"{name}_cpu_pct_scheduled"] = many[name]
    figures["cpu_pct_added"] = max(many[name] - none[name] for name in none)
    for label, values in (("base", base), ("many", delays)):
        figures[f"delay_{label}_median_ms"] = 1000 * statistics.median(values)
        figures[f"delay_{label}_p99_ms"] = 1000 * _p99(values)
    figures["delay_ratio_median"] = (
        figures["delay_many_median_ms"] / figures["delay_base_median_ms"]
    )
    figures["delay_ratio_p99"] = figures["delay_many_p99_ms"] / figures["delay_base_p99_ms"]
    figures["target"] = "idle CPU added < 0.5 points; p99 delay <= 1 s at 10,000 schedules"
    figures["met"] = figures["cpu_pct_added"] < 0.5 and figures["delay_many_p99_ms"] <= 1000
    return figures


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def _idle_cpu(stack, idle: float) -> dict[str, float]:
    """Return each server process's CPU (percent of one core) over an idle window."""
    processes = stack.processes()
    start = {name: cpu_seconds(process) for name, process in processes.items()}
    time.sleep(idle)  # the idle window being measured, not a wait for a condition
    return {name: 100 * (cpu_seconds(p) - start[name]) / idle for name, p in processes.items()}


def _add(owner, prefix: str, count: int, *, first: datetime, per_second: int = 1) -> list[int]:
    """Make `count` agents, each with a daily schedule of the owner's, the first due at
    `first` and then `per_second` a second; return the schedules' ids."""
    from playground.runs.models import Agent, Schedule

    agents = Agent.objects.bulk_create(
        Agent(slug=f"bench-{prefix}-{n}", name=f"Bench {n}", kind="bench-tick", owner=owner)
        for n in range(count)
    )
    rows = []
    for n, agent in enumerate(agents):
        slot = first + timedelta(seconds=n // per_second)
        rule = f"DTSTART:{slot:%Y%m%dT%H%M%S}Z\nRRULE:FREQ=DAILY"
        rows.append(
            Schedule(agent=agent, owner=owner, rule=rule, description="daily", next_run_at=slot)
        )
    return [row.pk for row in Schedule.objects.bulk_create(rows, batch_size=1000)]


def _delays(owner, prefix: str, count: int) -> list[float]:
    """Schedule `count` slots over the next minute; return each one's delay in seconds."""
    from playground.runs.models import Message, ScheduledRun

    # After every runner's next sweep, so each has read when the first one falls due.
    first = _now() + timedelta(seconds=settings.RECOVERY_SWEEP_SECONDS + 5)
    ids = _add(owner, prefix, count, first=first, per_second=PER_SECOND)
    runs = ScheduledRun.objects.filter(schedule__in=ids, turn__isnull=False)
    said = Message.objects.filter(turn__scheduled_run__schedule__in=ids)
    wait_until(lambda: said.count() >= count, 600, f"{count} scheduled runs did not all start")
    kinds = set(runs.values_list("kind", flat=True))
    assert kinds == {ScheduledRun.Kind.SCHEDULED}, f"runs were {kinds}, not one per slot"
    slot_at = dict(runs.values_list("turn_id", "slot_at"))
    queued_at = dict(runs.values_list("turn_id", "turn__created_at"))
    rows = list(said.values_list("turn_id", "created_at"))
    # Where the time went: the firer (slot to the turn's row) and the runner (row to word).
    fired = [(queued_at[turn] - slot_at[turn]).total_seconds() for turn, _ in rows]
    ran = [(created - queued_at[turn]).total_seconds() for turn, created in rows]
    print(
        f"  {prefix}: slot to turn queued median {statistics.median(fired):.3f} s, "
        f"max {max(fired):.3f} s; queued to first word median {statistics.median(ran):.3f} s, "
        f"max {max(ran):.3f} s",
        flush=True,
    )
    return [(created - slot_at[turn]).total_seconds() for turn, created in rows]


def _p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[98]


def run(stack, quick: bool, idle: float, **options) -> dict:
    return measure(stack, 1_000 if quick else 10_000, idle)


if __name__ == "__main__":
    bench_main("schedules", run)

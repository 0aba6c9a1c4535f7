"""Run one benchmark on one stack: `python -m bench.NAME --stack embedded|scaleout [--quick]`.

Prints the figures as it goes and, last, one line `RESULT {json}` that `python -m bench`
collects into the summary table.
"""

import argparse
import datetime
import json
import os
import platform

import psutil

from bench.stack import Stack


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            cpu = next(line.split(":", 1)[1].strip() for line in cpuinfo if "model name" in line)
    except (OSError, StopIteration):
        pass
    memory = psutil.virtual_memory().total / 2**30
    return f"{os.cpu_count()} cores ({cpu}), {memory:.0f} GiB, Python {platform.python_version()}"


def bench_main(name: str, run, *, workers: int = 2, concurrency: int | None = None) -> None:
    parser = argparse.ArgumentParser(prog=f"python -m bench.{name}")
    parser.add_argument("--stack", choices=["embedded", "scaleout"], default="embedded")
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a quick look")
    parser.add_argument("--workers", type=int, default=workers, help="agent workers in scale-out")
    parser.add_argument("--idle", type=float, default=60, help="waiting_cost: idle seconds")
    parser.add_argument(
        "--no-synchronous-commit",
        action="store_true",
        help="diagnostic: PostgreSQL commits without waiting for the disk (what fsync costs)",
    )
    args = parser.parse_args()
    stack = Stack(
        args.stack,
        workers=args.workers,
        synchronous_commit=not args.no_synchronous_commit,
        concurrency=concurrency,
    )
    with stack:
        print(f"{name} on {stack.description}", flush=True)
        figures = run(stack, quick=args.quick, idle=args.idle)
    result = {
        "bench": name,
        "stack": args.stack,
        "setup": stack.description,
        "quick": args.quick,
        "date": datetime.date.today().isoformat(),
        "machine": machine(),
        **figures,
    }
    for key, value in figures.items():
        print(f"  {key}: {round(value, 3) if isinstance(value, float) else value}")
    print("RESULT " + json.dumps(result), flush=True)

"""The README's Quick start is the two commands, and says how to change the port and what the
first run costs; the Makefile does what it says."""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
QUICK_START = README[
    README.index("## Quick start") : README.index("\n## ", README.index("## Quick start") + 3)
]


def test_the_quick_start_is_exactly_make_run_and_make_test():
    commands = re.search(r"```sh\n(.*?)```", QUICK_START, re.S).group(1)
    assert [line.split("#")[0].strip() for line in commands.splitlines()] == [
        "make run",
        "make test",
    ]


def test_the_quick_start_names_port_host_and_the_first_runs_install_time():
    prose = re.sub(r"\s+", " ", QUICK_START)
    assert "make run PORT=8001" in prose and "HOST=0.0.0.0" in prose
    assert "The first `make run` spends under a minute installing" in prose


def test_make_run_serves_on_the_port_and_host_it_is_given():
    dry = subprocess.run(
        ["make", "-n", "run", "PORT=8001", "HOST=0.0.0.0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "manage.py serve --host 0.0.0.0 --port 8001" in dry

"""A clone of the repository with nothing beside it runs the test suite: nothing reads outside."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.live_server import BASE_DIR


def tracked_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=BASE_DIR,
        capture_output=True,
        text=True,
        check=True,
    )
    return [name for name in listed.stdout.splitlines() if (BASE_DIR / name).is_file()]


# Two whole collections (every test module imported) take a minute or more each on a busy
# 2-core machine: they run side by side, under a timeout of their own.
@pytest.mark.timeout(600)
def test_a_copy_with_nothing_beside_it_collects_every_test(tmp_path):
    clone = tmp_path / "alone" / "repo"
    for name in tracked_files():
        (clone / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(BASE_DIR / name, clone / name)
    collect = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
    outputs = {
        root: tmp_path / f"{name}.txt" for name, root in (("here", BASE_DIR), ("there", clone))
    }
    runs = []
    for root, output in outputs.items():
        with open(output, "w") as sink:
            runs.append(subprocess.Popen(collect, cwd=root, stdout=sink, stderr=subprocess.STDOUT))
    assert [run.wait(timeout=500) for run in runs] == [0, 0], outputs[clone].read_text()[-3000:]
    here, there = (output.read_text().splitlines() for output in outputs.values())
    # "680 tests collected in 3.81s": the same count, here and there
    assert there[-1].split(" in ")[0] == here[-1].split(" in ")[0]


def test_no_file_in_the_repository_points_outside_it():
    outside = []
    for name in tracked_files():
        if not name.endswith((".py", ".sh", "Makefile", ".toml", ".cfg", ".ini")):
            continue
        text = (BASE_DIR / name).read_text(errors="replace")
        for needle in ("../" + "shared", "shared/" + "reference"):  # split: this file is no hit
            if needle in text and name != "tests/test_repository_stands_alone.py":
                outside.append(f"{name}: {needle}")
    assert outside == []


def test_every_test_path_resolves_inside_the_repository():
    root = BASE_DIR.resolve()
    for path in (BASE_DIR / "tests").rglob("*.py"):
        assert Path(path).resolve().is_relative_to(root), path

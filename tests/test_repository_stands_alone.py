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


COLLECT = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]


def collected_here(request) -> int:
    """The number of tests here: this session's own, when it collected the whole suite (as
    `make test` does: each xdist worker collects every test), else from a collection of it."""
    options = request.config.option
    if request.config.args == ["tests"] and not (
        options.keyword or options.markexpr or options.deselect
    ):
        return len(request.session.items)
    done = subprocess.run(COLLECT, cwd=BASE_DIR, capture_output=True, text=True, timeout=500)
    assert done.returncode == 0, done.stdout[-3000:]
    return int(done.stdout.splitlines()[-1].split()[0])


# A whole collection (every test module imported) takes a minute or more on a busy 2-core
# machine: a timeout of its own.
@pytest.mark.timeout(600)
def test_a_copy_with_nothing_beside_it_collects_every_test(tmp_path, request):
    clone = tmp_path / "alone" / "repo"
    for name in tracked_files():
        (clone / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(BASE_DIR / name, clone / name)
    there = subprocess.run(COLLECT, cwd=clone, capture_output=True, text=True, timeout=500)
    assert there.returncode == 0, there.stdout[-3000:]
    # "680 tests collected in 3.81s": the same count as here
    assert there.stdout.splitlines()[-1].split()[:2] == [str(collected_here(request)), "tests"]


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

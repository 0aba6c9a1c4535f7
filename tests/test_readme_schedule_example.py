"""The scheduled agent of docs/schedules.md works as written: each weekday at 09:00 in the
person's zone it runs in their Runs conversation, headed by the slot."""

import re
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from playground.runs.models import Agent, Schedule
from playground.schedules import scheduler
from tests.support.runtime_helpers import said

PAGE = Path(__file__).resolve().parent.parent / "docs" / "schedules.md"


@pytest.mark.django_db(transaction=True)
def test_the_readme_schedule_example_runs_at_its_slot(tmp_path, monkeypatch, alice, settings):
    section = PAGE.read_text()
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    (tmp_path / "my_schedules.py").write_text(code)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("my_schedules", None)
    __import__("my_schedules")

    settings.TIME_ZONE = "Europe/Berlin"  # alice's browser has not told us hers
    row = Agent.objects.create(slug="morning-digest", name="Digest", kind="morning-digest")
    monday_9 = datetime(2026, 12, 7, 8, 0, tzinfo=UTC)
    plan = scheduler.plan_for(row, alice)
    schedule = scheduler.set_schedule(row, alice, plan, now=datetime(2026, 12, 5, tzinfo=UTC))
    assert schedule.next_run_at == monday_9 and schedule.time_zone == "Europe/Berlin"
    scheduler.fire_due(now=monday_9)
    schedule = Schedule.objects.get(pk=schedule.pk)
    assert said(schedule.conversation) == ["Digest for Scheduled run, Mon 7 Dec 09:00 CET"]

"""Work that happens later, one mechanism for all of it.

A job is a table of rows that fall due (queued turns, schedule slots, notices, webhook
deliveries, questions to escalate, uploads never sent) and a step that claims what is due and
does it. Every job claims the same way (`claim`: locked rows skipped on PostgreSQL, writes
serialized on SQLite, a token, a conditional write-back) and is woken the same way (`runner`):
one LISTEN connection per process on PostgreSQL, an in-process wake in the embedded server,
and a bounded sleep until its next due row everywhere. The embedded server runs every job;
in scale-out `manage.py worker` does, and web processes run none.
"""

from playground.jobs.runner import Job, build, register, run, runs_here, wake, wake_on_commit

__all__ = ["Job", "build", "register", "run", "runs_here", "wake", "wake_on_commit"]

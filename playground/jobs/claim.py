"""The one claim of due rows: each row is claimed by one process, whatever runs at once."""

import uuid

from django.db import transaction
from django.db.models import QuerySet


def lock_due(due: QuerySet, *, order_by: tuple[str, ...], limit: int | None) -> list:
    """Inside the caller's transaction: lock up to `limit` rows of `due` (None: every one) and
    return their pks.

    PostgreSQL skips rows another process holds; SQLite serializes writes, so the caller's
    conditional write-back is what keeps a row from being done twice there.
    """
    if limit is not None and limit <= 0:
        return []
    locked = due.select_for_update(skip_locked=True).order_by(*order_by)
    return list(locked.values_list("pk", flat=True)[:limit])


def claim(
    due: QuerySet, *, order_by: tuple[str, ...], limit: int | None, token_field: str, **changes
) -> tuple[str, list]:
    """Claim up to `limit` rows of `due`: write a fresh token and `changes` on those still due,
    and commit before anything is done with them; return the token and the pks claimed."""
    token = uuid.uuid4().hex
    # Looked for outside a transaction first: on SQLite opening one takes the write lock.
    if (limit is not None and limit <= 0) or not due.exists():
        return token, []
    with transaction.atomic():
        pks = lock_due(due, order_by=order_by, limit=limit)
        if not pks:
            return token, []
        # Conditional: a row another process changed in between is no longer due.
        updated = due.filter(pk__in=pks).update(**{token_field: token}, **changes)
        if updated < len(pks):
            mine = due.model._default_manager.filter(pk__in=pks, **{token_field: token})
            pks = list(mine.values_list("pk", flat=True))
    return token, pks

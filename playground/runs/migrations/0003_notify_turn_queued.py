"""On PostgreSQL, a turn that becomes queued wakes the listening workers from the database
itself (playground/queue_wakeup.py): the notification goes out with the commit that queued the
turn, or not at all, and costs no statement of its own."""

from django.db import migrations

CREATE = [
    """
    CREATE FUNCTION playground_notify_turn_queued() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        -- Sent at commit; the same notification twice in one transaction is sent once.
        PERFORM pg_notify('playground_turn_queued', '');
        RETURN NULL;
    END $$
    """,
    """
    CREATE TRIGGER playground_turn_queued
        AFTER INSERT OR UPDATE OF status ON playground_turn
        FOR EACH ROW WHEN (NEW.status = 'queued')
        EXECUTE FUNCTION playground_notify_turn_queued()
    """,
]
DROP = [
    "DROP TRIGGER IF EXISTS playground_turn_queued ON playground_turn",
    "DROP FUNCTION IF EXISTS playground_notify_turn_queued()",
]


def run_on_postgresql(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for statement in statements:
                schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("playground", "0002_llm_turns")]

    operations = [migrations.RunPython(run_on_postgresql(CREATE), run_on_postgresql(DROP))]

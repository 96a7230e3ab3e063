"""On PostgreSQL, refuse TRUNCATE of the event table too (0003 refuses UPDATE and DELETE): a row
trigger does not fire for TRUNCATE, which empties the table at once (also when cascading from
another table's TRUNCATE, e.g. ``manage.py flush``).

The one way round it: a superuser sets ``hearts.allow_event_truncate`` to ``on`` in its session,
as the test suite does for its database flushes (tests/conftest.py). A superuser can switch
triggers off anyway (``session_replication_role``). The hash chain does not depend on the trigger:
a game whose events are gone audits as broken.
"""

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION tournaments_gameevent_no_truncate() RETURNS trigger AS $$
BEGIN
    IF current_setting('hearts.allow_event_truncate', true) = 'on'
            AND (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION USING
        MESSAGE = 'game events are append-only: TRUNCATE refused',
        ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER tournaments_gameevent_no_truncate
    BEFORE TRUNCATE ON tournaments_gameevent
    FOR EACH STATEMENT EXECUTE FUNCTION tournaments_gameevent_no_truncate();
"""

DROP = """
DROP TRIGGER IF EXISTS tournaments_gameevent_no_truncate ON tournaments_gameevent;
DROP FUNCTION IF EXISTS tournaments_gameevent_no_truncate();
"""


def create_trigger(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)


def drop_trigger(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0011_keyed_hash_chain")]

    operations = [migrations.RunPython(create_trigger, drop_trigger)]

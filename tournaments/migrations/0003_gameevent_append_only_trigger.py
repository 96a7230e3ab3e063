"""On PostgreSQL, refuse UPDATE and DELETE of game events in the database itself, so not even
raw SQL or a bug outside the ORM can rewrite a game's history."""

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION tournaments_gameevent_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION USING
        MESSAGE = 'game events are append-only: ' || TG_OP || ' refused',
        ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER tournaments_gameevent_append_only
    BEFORE UPDATE OR DELETE ON tournaments_gameevent
    FOR EACH ROW EXECUTE FUNCTION tournaments_gameevent_append_only();
"""

DROP = """
DROP TRIGGER IF EXISTS tournaments_gameevent_append_only ON tournaments_gameevent;
DROP FUNCTION IF EXISTS tournaments_gameevent_append_only();
"""


def create_trigger(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)


def drop_trigger(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0002_games_and_event_log")]

    operations = [migrations.RunPython(create_trigger, drop_trigger)]

"""Refuse, in the database itself, to change the login of an existing Player (``user_id``),
whoever asks: the admin, the shell, ``QuerySet.update``, ``bulk_update`` or raw SQL.

Seats, watching and the facts of roles ended are judged by the user a Player logs in as: a
Player moved to another login would carry its seats to someone else, or leave the facts of what
its user saw behind. A person who needs another login gets a new Player.

On SQLite a later migration that remakes ``tournaments_player`` (most changes of its columns)
drops the trigger with the old table: such a migration must create it again. The test of it
(tests/tournaments/clubs/test_roles.py) runs on either database."""

from django.db import migrations

MESSAGE = "the login of a player is fixed once the player exists"

POSTGRESQL_CREATE = f"""
CREATE OR REPLACE FUNCTION tournaments_player_login_fixed() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION USING MESSAGE = '{MESSAGE}', ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER tournaments_player_login_fixed
    BEFORE UPDATE OF user_id ON tournaments_player
    FOR EACH ROW WHEN (OLD.user_id IS DISTINCT FROM NEW.user_id)
    EXECUTE FUNCTION tournaments_player_login_fixed();
"""

POSTGRESQL_DROP = """
DROP TRIGGER IF EXISTS tournaments_player_login_fixed ON tournaments_player;
DROP FUNCTION IF EXISTS tournaments_player_login_fixed();
"""

SQLITE_CREATE = f"""
CREATE TRIGGER tournaments_player_login_fixed
    BEFORE UPDATE OF user_id ON tournaments_player
    FOR EACH ROW WHEN OLD.user_id IS NOT NEW.user_id
    BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END;
"""

SQLITE_DROP = "DROP TRIGGER IF EXISTS tournaments_player_login_fixed;"


# vendor: (create, drop); other databases are not guarded
TRIGGER_SQL = {"postgresql": (POSTGRESQL_CREATE, POSTGRESQL_DROP), "sqlite": (SQLITE_CREATE, SQLITE_DROP)}


def create_trigger(apps, schema_editor):
    statements = TRIGGER_SQL.get(schema_editor.connection.vendor)
    if statements:
        schema_editor.execute(statements[0])


def drop_trigger(apps, schema_editor):
    statements = TRIGGER_SQL.get(schema_editor.connection.vendor)
    if statements:
        schema_editor.execute(statements[1])


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0019_role_ended_keyed_on_user")]

    operations = [migrations.RunPython(create_trigger, drop_trigger)]

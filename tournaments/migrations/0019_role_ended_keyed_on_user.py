"""RoleEnded is keyed on the user who held the role, not on their Player: a staff user with no
Player when demoted (an admin-only account) left no fact, and a Player attached to them later
was judged as someone who had seen nothing. Facts already recorded keep their user."""

from django.conf import settings
from django.db import migrations, models


def copy_the_players_user(apps, schema_editor):
    RoleEnded = apps.get_model("tournaments", "RoleEnded")
    for fact in RoleEnded.objects.select_related("player"):
        if fact.player.user_id is None:
            fact.delete()  # a Player no one logs in as held no role that showed anything
        else:
            fact.user_id = fact.player.user_id
            fact.save(update_fields=["user"])


def copy_the_users_player(apps, schema_editor):
    RoleEnded = apps.get_model("tournaments", "RoleEnded")
    Player = apps.get_model("tournaments", "Player")
    players = dict(Player.objects.filter(user__isnull=False).values_list("user_id", "pk"))
    for fact in RoleEnded.objects.all():
        if fact.user_id in players:
            fact.player_id = players[fact.user_id]
            fact.save(update_fields=["player"])
        else:
            fact.delete()  # the earlier schema cannot hold a fact of a user with no Player


class Migration(migrations.Migration):
    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("tournaments", "0018_role_ended"),
    ]

    operations = [
        # nullable first, so that going back can add it again before refilling it
        migrations.AlterField(
            model_name="roleended",
            name="player",
            field=models.ForeignKey(
                null=True, on_delete=models.CASCADE, related_name="roles_ended", to="tournaments.player"
            ),
        ),
        migrations.AddField(
            model_name="roleended",
            name="user",
            field=models.ForeignKey(
                null=True,
                on_delete=models.CASCADE,
                related_name="roles_ended",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.RunPython(copy_the_players_user, copy_the_users_player),
        migrations.RemoveIndex(model_name="roleended", name="role_ended_by_player"),
        migrations.RemoveField(model_name="roleended", name="player"),
        migrations.AlterField(
            model_name="roleended",
            name="user",
            field=models.ForeignKey(
                on_delete=models.CASCADE, related_name="roles_ended", to=settings.AUTH_USER_MODEL
            ),
        ),
        migrations.AddIndex(
            model_name="roleended",
            index=models.Index(fields=["user", "role", "ended_at"], name="role_ended_by_user"),
        ),
    ]

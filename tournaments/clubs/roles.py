"""Facts recorded when a user loses a role that let them see a sealed table's play or results
(``RoleEnded``): the rule on who may be seated at a duplicate round's table judges by what a
user could see during the round, not by the role they hold when the director asks."""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.db.models.signals import m2m_changed, pre_delete, pre_save
from django.dispatch import receiver

from tournaments.models import League, Player, RoleEnded


@receiver(pre_save, sender=get_user_model())
def record_staff_role_ended(sender, instance, update_fields=None, raw=False, **kwargs):
    """A user saved with ``is_staff`` off who had it on: staff until now."""
    if raw or instance.pk is None or instance.is_staff:
        return
    if update_fields is not None and "is_staff" not in update_fields:
        return  # a login's last_login, say: the role cannot have changed
    if sender.objects.filter(pk=instance.pk, is_staff=True).exists():
        RoleEnded.objects.create(user_id=instance.pk, role=RoleEnded.Role.STAFF)


@receiver(m2m_changed, sender=League.directors.through)
def record_director_role_ended(sender, instance, action, reverse, pk_set, **kwargs):
    """Players removed from a league's directors (from either side of the relation): the fact is
    their user's, who read the results; a Player no one logs in as read nothing."""
    if action not in ("pre_remove", "pre_clear"):
        return
    if reverse:  # instance is a Player; pk_set its leagues (None: all of them, on clear)
        leagues = instance.leagues_directed.all() if pk_set is None else instance.leagues_directed.filter(pk__in=pk_set)
        ended = [(instance.user_id, league_id) for league_id in leagues.values_list("pk", flat=True)]
    else:  # instance is a League; pk_set its players
        directors = instance.directors.all() if pk_set is None else instance.directors.filter(pk__in=pk_set)
        ended = [(user_id, instance.pk) for user_id in directors.values_list("user_id", flat=True)]
    _record_directing_ended(ended)


@receiver(pre_delete, sender=Player)
def record_directing_left_with_the_player(sender, instance, origin=None, **kwargs):
    """A director Player deleted (in the admin) while its user stays: the user read its leagues'
    results until now. The deletion takes its rows of the leagues' directors without
    ``m2m_changed``; a Player's login cannot change (migration 0020), so this is the only other
    way a user stops directing. A user deleted takes their Player and their facts with them."""
    user_model = get_user_model()
    if instance.user_id is None or isinstance(origin, user_model) or getattr(origin, "model", None) is user_model:
        return
    leagues = instance.leagues_directed.values_list("pk", flat=True)
    _record_directing_ended((instance.user_id, league_id) for league_id in leagues)


def _record_directing_ended(ended: Iterable[tuple[int | None, int]]) -> None:
    """One fact per (user, league) whose directing ends now; a Player with no user read nothing."""
    RoleEnded.objects.bulk_create(
        RoleEnded(user_id=user_id, role=RoleEnded.Role.DIRECTOR, league_id=league_id)
        for user_id, league_id in ended
        if user_id is not None
    )

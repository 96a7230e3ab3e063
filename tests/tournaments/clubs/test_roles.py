"""The facts recorded when a user loses a role that showed them sealed tables (``RoleEnded``)."""

import pytest

from tests.factories import LeagueFactory, PlayerFactory, UserFactory
from tournaments.models import RoleEnded


def _ended(player):
    return list(RoleEnded.objects.filter(user=player.user).values_list("role", "league_id"))


@pytest.mark.django_db
def test_taking_staff_away_records_it_once_and_saving_a_login_records_nothing():
    player = PlayerFactory(user__is_staff=True)
    player.user.save(update_fields=["last_login"])
    player.user.save()
    assert _ended(player) == []
    player.user.is_staff = False
    player.user.save()
    player.user.save()  # no longer staff: nothing more ended
    assert _ended(player) == [("staff", None)]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "take_away",
    [
        lambda league, player: league.directors.remove(player),
        lambda league, player: league.directors.clear(),
        lambda league, player: player.leagues_directed.remove(league),
        lambda league, player: player.leagues_directed.clear(),
        lambda league, player: league.directors.set([]),
    ],
    ids=["league remove", "league clear", "player remove", "player clear", "league set"],
)
def test_removing_a_director_records_it_for_that_league_from_either_side(take_away):
    league, other = LeagueFactory(), LeagueFactory()
    player, bystander = PlayerFactory(), PlayerFactory()
    league.directors.add(player)
    other.directors.add(bystander)
    take_away(league, player)
    assert _ended(player) == [("director", league.pk)]
    assert _ended(bystander) == []


@pytest.mark.django_db
def test_staff_with_no_player_demoted_leave_the_fact_to_the_player_attached_to_them_later():
    """Found by review: the fact was kept on the Player, so an admin-only staff account (no
    Player yet) demoted left none, and a Player attached to it later was judged as someone who
    had watched nothing."""
    user = UserFactory(is_staff=True)
    user.is_staff = False
    user.save()
    player = PlayerFactory(user=user)
    assert _ended(player) == [("staff", None)]


@pytest.mark.django_db
def test_a_director_no_one_logs_in_as_leaves_no_fact():
    league, director = LeagueFactory(), PlayerFactory(user=None, display_name="Guest director")
    league.directors.add(director)
    league.directors.remove(director)
    assert not RoleEnded.objects.exists()


@pytest.mark.django_db
def test_a_director_player_given_to_another_user_ends_the_role_of_the_user_it_leaves():
    league, director = LeagueFactory(), PlayerFactory()
    league.directors.add(director)
    left = director.user
    director.display_name = "Renamed"
    director.save()
    assert not RoleEnded.objects.exists()
    director.user = UserFactory()
    director.save()
    assert list(RoleEnded.objects.values_list("user", "role", "league")) == [(left.pk, "director", league.pk)]

"""The facts recorded when a user loses a role that showed them sealed tables (``RoleEnded``)."""

import pytest
from django.db import IntegrityError, transaction

from tests.factories import LeagueFactory, PlayerFactory, UserFactory
from tournaments.models import Player, RoleEnded


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


def _give_another_login(player, user):
    player.user = user
    player.save()


def _give_another_login_with_update(player, user):
    Player.objects.filter(pk=player.pk).update(user=user)


def _give_another_login_with_bulk_update(player, user):
    player.user = user
    Player.objects.bulk_update([player], ["user"])


@pytest.mark.django_db
@pytest.mark.parametrize(
    "change", [_give_another_login, _give_another_login_with_update, _give_another_login_with_bulk_update]
)
@pytest.mark.parametrize(
    ("had_a_login", "gets_a_login"),
    [(True, True), (True, False), (False, True)],
    ids=["to-another-login", "to-none", "from-none"],
)
def test_a_players_login_cannot_be_changed_by_any_write(change, had_a_login, gets_a_login):
    """Seats, watching and the facts of roles ended follow the login a Player has: moved to
    another login, a seat would go to someone else, or the facts of what the user saw stay
    behind. The database refuses it, whoever writes (the ORM's save, update, bulk_update)."""
    league, player = LeagueFactory(), PlayerFactory(user=UserFactory() if had_a_login else None)
    league.directors.add(player)
    before = player.user_id
    with pytest.raises(IntegrityError, match="login of a player is fixed"), transaction.atomic():
        change(player, UserFactory() if gets_a_login else None)
    assert Player.objects.get(pk=player.pk).user_id == before
    assert not RoleEnded.objects.exists()
    player.refresh_from_db()
    player.display_name = "Renamed"
    player.save()  # everything else about a Player may change
    assert Player.objects.get(pk=player.pk).display_name == "Renamed"


@pytest.mark.django_db
def test_deleting_a_director_player_ends_the_directing_of_its_user():
    """The deletion takes the Player's rows of the leagues' directors without m2m_changed; the
    user, who stays, read the results until now."""
    directed, other = LeagueFactory(), LeagueFactory()
    director = PlayerFactory()
    directed.directors.add(director)
    account = director.user
    director.delete()
    assert list(RoleEnded.objects.values_list("user", "role", "league")) == [(account.pk, "director", directed.pk)]
    assert not RoleEnded.objects.filter(league=other).exists()


@pytest.mark.django_db
def test_deleting_a_directors_account_takes_their_player_and_records_nothing():
    league, director = LeagueFactory(), PlayerFactory()
    league.directors.add(director)
    director.user.delete()
    assert not Player.objects.filter(pk=director.pk).exists()
    assert not RoleEnded.objects.exists()
    assert not league.directors.exists()


@pytest.mark.django_db
def test_the_admin_shows_a_players_login_and_does_not_change_it(client):
    """The change form shows the login as text, and a forged ``user`` field is ignored."""
    admin = UserFactory(is_staff=True, is_superuser=True)
    player, stranger = PlayerFactory(), UserFactory()
    client.force_login(admin)
    page = f"/admin/tournaments/player/{player.pk}/change/"
    assert 'name="user"' not in client.get(page).content.decode()
    answer = client.post(page, {"display_name": "Renamed", "language": "", "user": stranger.pk})
    assert answer.status_code == 302, answer.content.decode()[:2000]
    player.refresh_from_db()
    assert (player.display_name, player.user_id) == ("Renamed", player.user.pk)
    assert player.user_id != stranger.pk
    assert 'name="user"' in client.get("/admin/tournaments/player/add/").content.decode()

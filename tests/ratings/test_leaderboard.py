"""Leaderboards and a player's ratings read the rating as of now: inactivity widens sigma on read."""

from datetime import timedelta

import pytest
from django.contrib import admin
from django.utils import timezone

from ratings.admin import RatingAdmin
from ratings.models import Rating
from ratings.rating import Skill, make_model
from ratings.selectors import leaderboard, player_ratings
from ratings.services import rating_record_game
from tests.factories import LeagueFactory, PlayerFactory, RatingFactory
from tests.ratings.helpers import finished_game, ratings_snapshot

pytestmark = pytest.mark.django_db

NOW = timezone.now().replace(microsecond=0)


def rating(name, *, days_ago, mu=1600.0, sigma=60.0, **fields):
    return RatingFactory(
        player=PlayerFactory(display_name=name),
        mu=mu,
        sigma=sigma,
        last_played_at=NOW - timedelta(days=days_ago, hours=1),
        **fields,
    )


def names(rows):
    return [row.name for row in rows]


def test_of_two_equal_stored_ratings_the_one_inactive_for_longer_ranks_lower_and_nothing_is_written():
    rating("Away a month", days_ago=30)
    rating("Away ten days", days_ago=10)
    rating("Played today", days_ago=0)
    before = ratings_snapshot()
    updated = sorted(Rating.objects.values_list("pk", "updated_at"))

    board = leaderboard(now=NOW)

    assert names(board.ranked) == ["Played today", "Away ten days", "Away a month"]
    assert [row.rank for row in board.ranked] == [1, 2, 3]
    assert [row.inactive_days for row in board.ranked] == [0, 10, 30]
    model = make_model("elo")
    for row in board.ranked:  # the model's own decay, from the stored values
        current = model.decay(Skill(1600.0, 60.0), row.inactive_days)
        assert (row.mu, row.sigma, row.conservative) == (1600.0, current.sigma, current.conservative)
    assert board.ranked[0].sigma == 60.0
    assert 60.0 < board.ranked[1].sigma < board.ranked[2].sigma
    # Reading changed no stored row.
    assert ratings_snapshot() == before
    assert sorted(Rating.objects.values_list("pk", "updated_at")) == updated
    assert set(Rating.objects.values_list("sigma", "conservative")) == {(60.0, 1600.0 - 180.0)}


def test_the_limit_applies_after_the_decayed_order():
    rating("Stopped", days_ago=60, mu=1620.0)  # stored 1440, ahead of Active...
    rating("Active", days_ago=0)  # ...stored 1420, but ahead once 60 days widen sigma

    board = leaderboard(now=NOW, limit=1)

    assert names(board.ranked) == ["Active"]
    assert Rating.objects.order_by("-conservative").first().player.display_name == "Stopped"


def test_only_whole_days_widen_and_equal_current_estimates_share_a_rank():
    for name in ("Yesterday evening", "This morning"):
        RatingFactory(
            player=PlayerFactory(display_name=name), mu=1600.0, sigma=60.0, last_played_at=NOW - timedelta(hours=23)
        )

    board = leaderboard(now=NOW)

    assert [(row.rank, row.inactive_days, row.sigma) for row in board.ranked] == [(1, 0, 60.0)] * 2


def test_provisional_players_are_listed_by_the_decayed_estimate_too():
    rating("Newcomer away", days_ago=40, sigma=200.0, games=5, provisional=True)
    rating("Newcomer here", days_ago=0, sigma=200.0, games=5, provisional=True)

    board = leaderboard(now=NOW)

    assert board.ranked == []
    assert names(board.provisional) == ["Newcomer here", "Newcomer away"]


def test_a_league_leaderboard_decays_with_its_pools_stored_model():
    league = LeagueFactory()
    params = {**make_model("elo").params, "sigma_per_day": 20.0}
    rating("Member", days_ago=9, league=league, model_params=params)

    [row] = leaderboard(league_id=league.pk, now=NOW).ranked

    assert row.sigma == make_model("elo", **params).decay(Skill(1600.0, 60.0), 9).sigma
    assert row.sigma != make_model("elo").decay(Skill(1600.0, 60.0), 9).sigma


def test_a_players_ratings_show_sigma_as_of_now(api_client):
    stored = rating("Returning", days_ago=20)
    before = ratings_snapshot()

    [pool] = api_client.get(f"/api/players/{stored.player_id}/ratings").json()["ratings"]

    widened = make_model("elo").decay(Skill(1600.0, 60.0), 20)
    assert (pool["mu"], pool["sigma"], pool["inactive_days"]) == (1600.0, widened.sigma, 20)
    assert pool["conservative"] == pytest.approx(widened.conservative)
    assert [row.current for row in player_ratings(player_id=stored.player_id, now=NOW)] == [widened]
    assert ratings_snapshot() == before


def test_the_leaderboard_endpoint_shows_the_estimate_it_ranks_by(api_client):
    rating("Away", days_ago=30, mu=1610.0)
    rating("Here", days_ago=0)

    rows = api_client.get("/api/leaderboard").json()["ranked"]

    assert [row["name"] for row in rows] == ["Here", "Away"]
    assert rows[0]["conservative"] > rows[1]["conservative"]
    assert (rows[1]["inactive_days"], rows[1]["sigma"]) == (30, make_model("elo").decay(Skill(1610.0, 60.0), 30).sigma)


GLICKO = {"model_name": "glicko-elo", "model_params": make_model("glicko-elo").params}  # sigma 80, provisional 58
GLICKO_150 = {
    "model_name": "glicko-elo",
    "model_params": {  # a pool stored while the start was 150 (issue 24)
        "mu": 1500.0,
        "sigma": 150.0,
        "scale": 400.0,
        "info_weight": 2.0,
        "sigma_min": 15.0,
        "sigma_per_day": 5.0,
        "centre_weight": 2.0,
    },
}


def board_names(api_client):
    body = api_client.get("/api/leaderboard").json()
    return names_of(body["ranked"]), names_of(body["provisional"])


def names_of(rows):
    return [row["name"] for row in rows]


def provisional_in_api(api_client, player):
    [pool] = api_client.get(f"/api/players/{player.pk}/ratings").json()["ratings"]
    return pool["provisional"]


def test_a_player_away_long_enough_is_provisional_again_and_ranked_after_playing_again(api_client):
    # 13 games, sigma 52: established when stored (under glicko-elo's provisional sigma, 58). Thirty
    # days away widen sigma to 58.8 on reading: past the threshold by decay alone.
    away = rating("Back after a month", days_ago=30, sigma=52.0, games=13, **GLICKO)
    opponents = [rating(name, days_ago=0, sigma=40.0, games=30, **GLICKO).player for name in ("Ann", "Bob")]
    before = ratings_snapshot()

    ranked, provisional = board_names(api_client)

    assert (ranked, provisional) == (["Ann", "Bob"], ["Back after a month"])
    assert provisional_in_api(api_client, away.player) is True
    assert RatingAdmin(Rating, admin.site).provisional_now(away) is True
    assert ratings_snapshot() == before  # reading wrote nothing: the stored flag is as of the last game
    assert Rating.objects.get(pk=away.pk).provisional is False

    game = finished_game([away.player, *opponents], [30, 60, 90], finished_at=timezone.now())
    rating_record_game(game_id=game.pk)

    ranked, provisional = board_names(api_client)
    assert "Back after a month" in ranked and provisional == []
    assert provisional_in_api(api_client, away.player) is False
    assert Rating.objects.get(pk=away.pk).sigma < 58.0


def test_a_regular_idle_for_four_months_counts_as_provisional(api_client, settings):
    settings.RATINGS_LEADERBOARD_ACTIVE_DAYS = 365  # the default 90 would not list one of them
    regular = rating("Regular", days_ago=120, sigma=25.0, games=200, **GLICKO)  # sigma 60.2 now
    rating("Three months", days_ago=90, sigma=25.0, games=200, **GLICKO)  # sigma 53.6 now

    ranked, provisional = board_names(api_client)

    assert (ranked, provisional) == (["Three months"], ["Regular"])
    assert provisional_in_api(api_client, regular.player) is True
    assert leaderboard(now=NOW).provisional[0].sigma == pytest.approx(60.21, abs=0.01)


def test_in_a_pool_stored_with_sigma_150_a_regular_turns_provisional_after_seven_months_as_before(api_client, settings):
    settings.RATINGS_LEADERBOARD_ACTIVE_DAYS = 365  # the default 90 would not list them at all
    regular = rating("Regular", days_ago=210, sigma=25.0, games=200, **GLICKO_150)  # sigma 76.6 now
    rating("Six months", days_ago=180, sigma=25.0, games=200, **GLICKO_150)  # sigma 70.7 now

    ranked, provisional = board_names(api_client)

    assert (ranked, provisional) == (["Six months"], ["Regular"])
    assert provisional_in_api(api_client, regular.player) is True
    assert leaderboard(now=NOW).provisional[0].sigma == pytest.approx(76.65, abs=0.01)


def test_each_ranked_player_gets_the_ranks_their_sigma_allows(api_client):
    # mu ± 1.39 sigma: Ace 1772-1828, Bea 1672-1728, Cy 1652-1708, Dot 1551-1829 (uncertain), Eve 1472-1528.
    for name, mu, sigma in [
        ("Ace", 1800.0, 20.0),
        ("Bea", 1700.0, 20.0),
        ("Cy", 1680.0, 20.0),
        ("Dot", 1690.0, 100.0),
        ("Eve", 1500.0, 20.0),
    ]:
        rating(name, days_ago=0, mu=mu, sigma=sigma, games=40)
    rating("Newbie", days_ago=0, mu=1700.0, sigma=200.0, games=4)  # provisional: no rank, no range

    board = leaderboard(now=NOW)

    assert names(board.ranked) == ["Ace", "Bea", "Cy", "Eve", "Dot"]  # by mu - 3 sigma: Dot's sigma is wide
    assert {row.name: row.rank_range for row in board.ranked} == {
        "Ace": (1, 2),  # nobody's interval lies wholly above; Dot's reaches above Ace's lower end
        "Bea": (2, 4),  # Ace is surely above; Cy and Dot overlap her; Eve is surely below
        "Cy": (2, 4),
        "Eve": (4, 5),  # four intervals lie wholly above hers (5th); widened to hold her listed 4th
        "Dot": (1, 5),  # could be anywhere above Eve (1-4); widened to hold the 5th place mu - 3 sigma gives
    }
    assert all(row.rank_range[0] <= row.rank <= row.rank_range[1] for row in board.ranked)
    assert board.provisional[0].rank_range is None
    # The range counts every ranked player, even those a limit leaves out.
    assert [row.rank_range for row in leaderboard(now=NOW, limit=2).ranked] == [(1, 2), (2, 4)]

    body = api_client.get("/api/leaderboard").json()
    assert [row["rank_range"] for row in body["ranked"]] == [[1, 2], [2, 4], [2, 4], [4, 5], [1, 5]]
    assert body["provisional"][0]["rank_range"] is None


def test_equally_certain_players_ranges_part_where_their_gap_is_significant():
    """1.39 sigma each side: two players of sigma 30 stop overlapping at a gap of 83.4 = 1.96 x 30 sqrt 2."""
    rating("Upper", days_ago=0, mu=1584.0, sigma=30.0)
    rating("Lower", days_ago=0, mu=1500.0, sigma=30.0)
    assert [row.rank_range for row in leaderboard(now=NOW).ranked] == [(1, 1), (2, 2)]
    Rating.objects.filter(player__display_name="Upper").update(mu=1583.0)
    assert [row.rank_range for row in leaderboard(now=NOW).ranked] == [(1, 2), (1, 2)]

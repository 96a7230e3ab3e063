"""``rebuild_ratings`` recomputes exactly what the games stored one by one."""

import random
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from ratings.models import Rating, RatingHistory
from ratings.services import rating_record_game
from tests.factories import CpuPlayerFactory, LeagueFactory, PlayerFactory
from tests.ratings.helpers import T0, finished_game, ratings_snapshot

pytestmark = pytest.mark.django_db


def play_a_season(seed=8, games=60):
    """Games of every kind in finishing order, each rated by the hook as it ends."""
    rng = random.Random(seed)
    people = PlayerFactory.create_batch(10)
    cpu = CpuPlayerFactory()
    leagues = [LeagueFactory(rate_games_with_cpus=True), LeagueFactory(rate_games_with_cpus=False)]
    when = T0
    played = []
    for _ in range(games):
        size = rng.choice([3, 4, 5])
        seated = rng.sample(people, size)
        if rng.random() < 0.2:
            seated[rng.randrange(size)] = cpu
        totals = [rng.choice([rng.randrange(0, 130), 50]) for _ in seated]  # 50s make ties
        when += timedelta(hours=rng.choice([1, 5, 30, 24 * 20]))
        game = finished_game(
            seated,
            totals,
            league=rng.choice([None, *leagues]),
            ranked=rng.random() < 0.9,
            finished_at=when,
            away={0} if rng.random() < 0.2 else (),
        )
        rating_record_game(game_id=game.pk)
        played.append(game)
    return people, leagues, played


@pytest.mark.parametrize("model", ["elo", "glicko-elo", "bt-full"])
def test_a_rebuild_reproduces_the_stored_ratings_exactly(settings, model):
    settings.RATINGS_MODEL = model
    _, leagues, _ = play_a_season()
    stored = ratings_snapshot()
    assert len(stored[0]) > 20 and len(stored[1]) > 150
    assert {row[1] for row in stored[0]} == {None, *(league.pk for league in leagues)}
    assert {row[2] for row in stored[0]} == {model}

    call_command("rebuild_ratings", stdout=StringIO())

    assert ratings_snapshot() == stored


def test_rebuilding_one_league_leaves_the_other_pools_alone():
    _, leagues, _ = play_a_season(seed=9, games=30)
    stored = ratings_snapshot()
    other_pools = Rating.objects.exclude(league=leagues[0]).order_by("pk")
    others = list(other_pools.values_list("pk", flat=True))

    call_command("rebuild_ratings", "--league", str(leagues[0].pk), stdout=StringIO())

    assert ratings_snapshot() == stored
    assert list(other_pools.values_list("pk", flat=True)) == others


def test_a_game_rated_late_rebuilds_its_pool_so_the_values_stay_those_of_a_rebuild():
    people = PlayerFactory.create_batch(5)
    early = finished_game(people[:4], [10, 20, 30, 40], finished_at=T0)
    later = finished_game(people[1:], [40, 30, 20, 10], finished_at=T0 + timedelta(hours=1))
    rating_record_game(game_id=later.pk)
    rating_record_game(game_id=early.pk)  # its task arrived second

    stored = ratings_snapshot()
    call_command("rebuild_ratings", stdout=StringIO())
    assert ratings_snapshot() == stored
    assert RatingHistory.objects.filter(player=people[1]).count() == 2


def test_a_rebuild_can_switch_a_pool_to_another_model_which_later_games_then_use():
    people = PlayerFactory.create_batch(4)
    rating_record_game(game_id=finished_game(people, [10, 20, 30, 40]).pk)

    call_command("rebuild_ratings", "--model", "bt-full", stdout=StringIO())
    assert set(Rating.objects.values_list("model_name", flat=True)) == {"bt-full"}
    assert Rating.objects.get(player=people[0]).mu > 25.0

    rating_record_game(game_id=finished_game(people, [40, 30, 20, 10], finished_at=T0 + timedelta(days=1)).pk)
    assert set(Rating.objects.values_list("model_name", flat=True)) == {"bt-full"}
    stored = ratings_snapshot()
    call_command("rebuild_ratings", stdout=StringIO())  # keeps the stored model
    assert ratings_snapshot() == stored


def test_the_command_refuses_an_unknown_league():
    with pytest.raises(CommandError):
        call_command("rebuild_ratings", "--league", "999999")


BEFORE_ISSUE_24 = {
    "mu": 1500.0,
    "sigma": 150.0,
    "scale": 400.0,
    "info_weight": 2.0,
    "sigma_min": 15.0,
    "sigma_per_day": 5.0,
}
"""The params glicko-elo pools stored before issue 24 hold: no centre_weight, no provisional_sigma."""

DURING_ISSUE_24 = {**BEFORE_ISSUE_24, "centre_weight": 2.0}
"""Those of pools stored while the default was sigma 150 with the pull: still no provisional_sigma."""


def stored_pool(settings, people, params, games):
    """``games`` tables of ``people`` rated as a pool stored with ``params`` was (then stored with exactly
    those params, as such a pool holds them); returns the time of the last game."""
    settings.RATINGS_MODEL_PARAMS = {"centre_weight": 0.0, "provisional_sigma": 0.0, **params}
    when = T0
    for i in range(games):
        when += timedelta(hours=1)
        totals = [10 + (i * 7 + seat * 13) % 50 for seat in range(len(people))]
        rating_record_game(game_id=finished_game(people, totals, finished_at=when).pk)
    Rating.objects.update(model_params=params)
    settings.RATINGS_MODEL_PARAMS = {}
    return when


def test_a_glicko_elo_pool_stored_before_the_centre_pull_keeps_being_rated_and_rebuilt_without_it(settings):
    """Pools rated before glicko-elo had ``centre_weight`` stored params without it: new games and
    rebuilds go on rating them as they were (sigma 150, no pull), not with today's defaults."""
    from ratings.rating import GlickoElo, Skill, make_model

    people = PlayerFactory.create_batch(4)
    when = stored_pool(settings, people, BEFORE_ISSUE_24, games=3)
    before = {r.player_id: Skill(r.mu, r.sigma) for r in Rating.objects.all()}
    totals = [40, 30, 20, 10]

    rating_record_game(game_id=finished_game(people, totals, finished_at=when + timedelta(hours=1)).pk)

    expected = GlickoElo(**BEFORE_ISSUE_24).rate([before[p.pk] for p in people], totals)
    assert [Skill(r.mu, r.sigma) for r in (Rating.objects.get(player=p) for p in people)] == expected
    pulled = make_model("glicko-elo", **DURING_ISSUE_24).rate([before[p.pk] for p in people], totals)
    assert pulled != expected  # the pull would have rated it differently
    stored = ratings_snapshot()
    call_command("rebuild_ratings", stdout=StringIO())
    assert ratings_snapshot()[1] == stored[1]  # every history row as it was
    assert [Skill(r.mu, r.sigma) for r in (Rating.objects.get(player=p) for p in people)] == expected


def test_a_pool_stored_with_sigma_150_and_the_pull_keeps_both_and_its_provisional_threshold(settings):
    """A pool stored while the default was sigma 150 with the pull (no provisional_sigma) goes on being
    rated with both, and decides provisional status by half of 150 (75), not today's 58: after 12
    games its players' sigma (~67) is under 75 but over 58, so they are established, and stay so
    through new games and a rebuild, which reproduces every stored value."""
    from ratings.rating import GlickoElo, Skill

    settings.RATINGS_PROVISIONAL_GAMES = 1  # let sigma alone decide
    people = PlayerFactory.create_batch(4)
    when = stored_pool(settings, people, DURING_ISSUE_24, games=12)
    before = {r.player_id: Skill(r.mu, r.sigma) for r in Rating.objects.all()}
    assert all(58.0 < s.sigma < 75.0 for s in before.values())
    totals = [40, 30, 20, 10]

    rating_record_game(game_id=finished_game(people, totals, finished_at=when + timedelta(hours=1)).pk)

    rows = [Rating.objects.get(player=p) for p in people]
    assert [Skill(r.mu, r.sigma) for r in rows] == GlickoElo(**DURING_ISSUE_24).rate(
        [before[p.pk] for p in people], totals
    )
    assert all(58.0 < r.sigma < 75.0 and r.provisional is False for r in rows)
    assert {r.model_params["sigma"] for r in rows} == {150.0}
    stored = ratings_snapshot()
    call_command("rebuild_ratings", stdout=StringIO())
    assert ratings_snapshot() == stored

"""Rating finished games through the service: what counts, worked numbers, ties, decay, the hook."""

import math
from datetime import timedelta

import pytest
from django.conf import settings

from ratings.models import Rating, RatingHistory
from ratings.rating import Skill, make_model
from ratings.services import rating_record_game
from tests.factories import CpuPlayerFactory, LeagueFactory, PlayerFactory, RatingFactory
from tests.ratings.helpers import T0, finished_game, global_rating
from tournaments.autoplay.tasks import game_finished

pytestmark = pytest.mark.django_db
TOL = 1e-9


def test_a_worked_example_gives_the_expected_numbers_with_the_default_model():
    # Four new players (glicko-elo: 1500 ± 80, info_weight 2, so each pair weighs 2/3). Every
    # expected pairwise score is 1/2 and g = g(80) for everyone: 1/sigma^2 gains
    # q^2 * 2/3 * 3 g^2 / 4 = q^2 g^2 / 2, and the winner gains q sigma'^2 * 2/3 * 3 g / 2
    # = q sigma'^2 g; the tied pair's wins and losses cancel; the last loses as much.
    people = PlayerFactory.create_batch(4)
    game = finished_game(people, [40, 55, 55, 101])

    assert rating_record_game(game_id=game.pk) == 4

    q = math.log(10) / 400
    g = 1 / math.sqrt(1 + 3 * q * q * 80**2 / math.pi**2)
    variance = 1 / (1 / 80**2 + q * q * g * g / 2)
    gain = q * variance * g
    assert (g, math.sqrt(variance), gain) == pytest.approx((0.9692, 76.29, 32.47), abs=0.005)
    rows = [global_rating(p) for p in people]
    assert {r.model_name for r in rows} == {"glicko-elo"}
    assert [r.mu for r in rows] == pytest.approx([1500 + gain, 1500.0, 1500.0, 1500 - gain], abs=TOL)
    assert {r.sigma for r in rows} == {round(math.sqrt(variance), 10)}
    assert all(r.games == 1 and r.provisional and r.last_played_at == game.finished_at for r in rows)
    assert rows[0].conservative == rows[0].mu - 3 * rows[0].sigma


def test_a_worked_example_gives_the_expected_numbers_with_elo(settings):
    # Four new players (elo: 1500 ± 350, K 32 while new). Every expected pairwise score is 1/2,
    # so the winner gains 32 * (3 * 1/2) / 3 = 16, the two tied players' wins and losses
    # cancel out, and the last loses 16. Sigma: 1/sigma^2 gains (ln 10 / 400)^2 * 3/4 / 3.
    settings.RATINGS_MODEL = "elo"
    people = PlayerFactory.create_batch(4)
    game = finished_game(people, [40, 55, 55, 101])

    assert rating_record_game(game_id=game.pk) == 4

    sigma = round(1 / math.sqrt(1 / 350**2 + (math.log(10) / 400) ** 2 * 0.25), 10)
    assert sigma == pytest.approx(246.5757154618)
    rows = [global_rating(p) for p in people]
    assert [r.mu for r in rows] == [1516.0, 1500.0, 1500.0, 1484.0]
    assert {r.sigma for r in rows} == {sigma}
    assert all(r.games == 1 and r.provisional and r.last_played_at == game.finished_at for r in rows)
    assert rows[0].conservative == 1516.0 - 3 * sigma
    places = [RatingHistory.objects.get(player=p, league__isnull=True).place for p in people]
    assert places == [1, 2, 2, 4]


def test_a_tie_moves_a_player_halfway_between_the_win_and_the_loss():
    # The same three players, with the same (unequal) ratings, in three leagues: A beats B,
    # A loses to B, A ties B; C finishes last each time.
    a, b, c = PlayerFactory.create_batch(3)
    outcomes = {"win": [10, 20, 30], "loss": [20, 10, 30], "tie": [15, 15, 30]}
    after = {}
    for outcome, totals in outcomes.items():
        league = LeagueFactory()
        for player, mu, sigma in ((a, 1600.0, 120.0), (b, 1450.0, 200.0), (c, 1500.0, 60.0)):
            RatingFactory(player=player, league=league, mu=mu, sigma=sigma, last_played_at=T0)
        game = finished_game([a, b, c], totals, league=league, finished_at=T0)
        rating_record_game(game_id=game.pk)
        after[outcome] = {p: Rating.objects.get(player=p, league=league) for p in (a, b, c)}

    for player in (a, b, c):
        mean = (after["win"][player].mu + after["loss"][player].mu) / 2
        assert after["tie"][player].mu == pytest.approx(mean, abs=TOL)
        assert after["tie"][player].sigma == after["win"][player].sigma == after["loss"][player].sigma
    assert after["win"][a].mu > after["tie"][a].mu > after["loss"][a].mu


def test_casual_and_unfinished_games_change_no_rating():
    people = PlayerFactory.create_batch(4)
    casual = finished_game(people, [10, 20, 30, 40], ranked=False)
    active = finished_game(people, [10, 20, 30, 40], status="active")

    assert rating_record_game(game_id=casual.pk) == 0
    assert rating_record_game(game_id=active.pk) == 0
    assert rating_record_game(game_id=999_999) == 0
    assert not Rating.objects.exists()
    assert not RatingHistory.objects.exists()


def test_cpus_are_never_rated_and_their_games_count_only_where_the_league_allows():
    people = PlayerFactory.create_batch(3)
    cpu = CpuPlayerFactory()
    allowing = LeagueFactory(rate_games_with_cpus=True)
    strict = LeagueFactory(rate_games_with_cpus=False)

    assert rating_record_game(game_id=finished_game([*people, cpu], [40, 30, 60, 10], league=strict).pk) == 0
    assert rating_record_game(game_id=finished_game([*people, cpu], [40, 30, 60, 10]).pk) == 0
    assert not Rating.objects.exists()

    game = finished_game([cpu, *people], [10, 40, 30, 60], league=allowing)
    assert rating_record_game(game_id=game.pk) == 3
    assert not Rating.objects.filter(player=cpu).exists()
    assert not Rating.objects.filter(league__isnull=True).exists()  # the global pool never rates them
    # Rated among the humans only: exactly a 3-player table of their totals (new pool: default model).
    model = make_model()
    expected = model.rate([model.initial()] * 3, [40, 30, 60])
    got = [Rating.objects.get(player=p, league=allowing) for p in people]
    assert [Skill(r.mu, r.sigma) for r in got] == expected
    assert [h.place for h in RatingHistory.objects.filter(game=game).order_by("seat")] == [2, 1, 3]


def test_a_game_with_a_single_human_among_cpus_rates_nobody():
    league = LeagueFactory(rate_games_with_cpus=True)
    game = finished_game([PlayerFactory(), *CpuPlayerFactory.create_batch(3)], [1, 2, 3, 4], league=league)
    assert rating_record_game(game_id=game.pk) == 0


def test_a_player_whose_seat_a_cpu_took_is_still_rated_on_the_final_result():
    people = PlayerFactory.create_batch(4)
    game = finished_game(people, [20, 30, 40, 110], away={3})

    assert rating_record_game(game_id=game.pk) == 4
    model = make_model()
    assert global_rating(people[3]).mu == model.rate([model.initial()] * 4, [20, 30, 40, 110])[3].mu < 1500.0


def test_a_league_game_counts_in_the_league_and_in_the_global_pool():
    league = LeagueFactory()
    people = PlayerFactory.create_batch(4)
    game = finished_game(people, [20, 30, 40, 110], league=league)

    assert rating_record_game(game_id=game.pk) == 8
    assert Rating.objects.filter(league=league).count() == 4
    assert Rating.objects.filter(league__isnull=True).count() == 4


def test_inactivity_widens_uncertainty_before_the_update():
    people = PlayerFactory.create_batch(3)
    for player in people:
        RatingFactory(player=player, mu=1500.0, sigma=60.0, last_played_at=T0 - timedelta(days=100, hours=5))
    game = finished_game(people, [10, 20, 30], finished_at=T0)

    rating_record_game(game_id=game.pk)

    model = make_model("elo")
    decayed = model.decay(Skill(1500.0, 60.0), days_inactive=100)
    assert decayed.sigma > 60.0
    expected = model.rate([decayed] * 3, [10, 20, 30])
    assert [Skill(global_rating(p).mu, global_rating(p).sigma) for p in people] == expected
    history = RatingHistory.objects.get(player=people[0])
    assert (history.mu_before, history.sigma_before) == (1500.0, 60.0)


def test_the_hook_is_idempotent_and_wired_to_the_game_finished_task():
    people = PlayerFactory.create_batch(4)
    game = finished_game(people, [20, 30, 40, 110], league=LeagueFactory())

    game_finished(game.pk)  # the tournaments task runs every HEARTS_GAME_FINISHED_HOOKS entry
    first = list(Rating.objects.order_by("pk").values())
    game_finished(game.pk)  # redelivered
    assert rating_record_game(game_id=game.pk) == 0

    assert list(Rating.objects.order_by("pk").values()) == first
    assert RatingHistory.objects.filter(game=game).count() == 8
    assert all(r["games"] == 1 for r in first)


def test_a_real_ranked_game_is_rated_when_it_ends():
    from tests.tournaments.helpers import play_through_api, seated_table

    game, people, clients = seated_table(players=3, rules={"end_score": 1}, ranked=True)
    game = play_through_api(game, clients)

    game_finished(game.pk)

    rows = [global_rating(p) for p in people]
    assert all(r.games == 1 for r in rows)
    best = min(range(3), key=lambda seat: game.final_totals[seat])
    assert rows[best].mu == max(r.mu for r in rows) > 1500.0


@pytest.mark.skipif(not settings.USING_POSTGRES, reason="needs PostgreSQL row locks (CI runs it)")
@pytest.mark.django_db(transaction=True)
def test_the_same_game_delivered_twice_at_once_is_rated_once():
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection

    people = PlayerFactory.create_batch(4)
    game = finished_game(people, [20, 30, 40, 110])

    def deliver(_):
        try:
            return rating_record_game(game_id=game.pk)
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=2) as pool:
        written = sorted(pool.map(deliver, range(2)))

    assert written == [0, 4]
    assert [global_rating(p).games for p in people] == [1, 1, 1, 1]

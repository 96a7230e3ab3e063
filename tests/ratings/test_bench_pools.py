"""The live-pool bench scenario: the queue it ports, its anchors, its figures, its command line."""

import random
import statistics
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from ratings import bench, bench_pools
from ratings.bench_pools import (
    NEWCOMER_CHECKPOINTS,
    PoolSpec,
    QueueSpec,
    anchor,
    find_table,
    points_per_skill_sd,
    queue_points_per_skill_sd,
    run_pool,
    tie_rate,
)
from ratings.models import QueueEntry
from ratings.rating import Skill, finishing_ranks, make_model
from ratings.services import matchmaking

SMALL = PoolSpec(players=40, games=800, eval_every=100, queue=QueueSpec(joins_per_second=2.0))
T0 = datetime(2025, 3, 1, tzinfo=UTC)


@hypothesis_settings(max_examples=150, deadline=None)
@given(
    waiting=st.lists(
        st.tuples(st.sampled_from([1400.0, 1450.0, 1500.0, 1530.0, 1600.0, 1750.0]), st.integers(0, 400)),
        min_size=2,
        max_size=12,
    ),
    size=st.sampled_from([3, 4, 5]),
)
def test_the_bench_seats_the_same_table_the_ranked_queue_does(waiting, size):
    """The bench's ``find_table`` against the service's ``_find_table`` on the same waiting players
    (equal ratings and arrival times included: the tie-breaks must agree too)."""
    now = T0 + timedelta(seconds=500)
    entries = [
        QueueEntry(pk=i + 1, mu=mu, joined_at=T0 + timedelta(seconds=joined)) for i, (mu, joined) in enumerate(waiting)
    ]
    entries.sort(key=lambda e: (e.joined_at, e.pk))  # the service reads them oldest first
    ours = [
        bench_pools._Entry(player=e.pk, mu=e.mu, joined_at=(e.joined_at - T0).total_seconds(), order=e.pk)
        for e in entries
    ]
    windows = {e.order: bench_pools._window(QueueSpec(), 500.0 - e.joined_at) for e in ours}

    theirs = matchmaking._find_table(entries, size, now)
    mine = find_table(ours, size, windows)

    assert (None if theirs is None else [e.pk for e in theirs]) == (None if mine is None else [e.player for e in mine])


def test_the_queue_windows_are_the_services_defaults():
    spec = QueueSpec()
    for waited in (0.0, 10.0, 60.0, 500.0):
        assert bench_pools._window(spec, waited) == matchmaking.match_window(waited_seconds=waited)


def test_each_models_scale_is_found_from_its_own_win_probability():
    # Elo's 400-point logistic is the queue's own scale; at luck 2.5 one skill SD is ~79 points
    assert points_per_skill_sd(make_model("elo"), 2.5) == pytest.approx(queue_points_per_skill_sd(2.5), rel=1e-9)
    assert queue_points_per_skill_sd(2.5) == pytest.approx(78.7, abs=0.1)
    # the anchors are matched: one skill SD is their initial sigma, 25/3
    assert points_per_skill_sd(anchor("trueskill", luck=2.5, drift=0.01), 2.5) == pytest.approx(25 / 3, rel=1e-6)


def test_the_tie_rate_trueskill_is_given_is_the_simulations():
    rng = random.Random(4)
    pairs = 200_000
    ties = sum(bench.game_total(rng.gauss(0, 2.5)) == bench.game_total(rng.gauss(0, 2.5)) for _ in range(pairs))
    assert ties / pairs == pytest.approx(tie_rate(2.5), rel=0.1)


def test_the_trueskill_anchor_rates_a_finishing_order_with_ties():
    model = anchor("trueskill", luck=2.5, drift=0.01)
    assert model.params["beta"] == pytest.approx(2.5 * 25 / 3) and model.params["tau"] == pytest.approx(0.01 * 25 / 3)
    new = [model.initial()] * 4
    after = model.rate(new, [40, 55, 55, 101])
    assert after[0].mu > after[1].mu > after[3].mu
    assert after[1].mu == pytest.approx(after[2].mu, abs=1e-3)  # tied: equal up to its iterations' tolerance
    assert all(s.sigma < model.initial().sigma for s in after)
    strong, weak = Skill(30.0, 2.0), Skill(20.0, 3.0)
    assert model.win_probability(strong, weak) + model.win_probability(weak, strong) == pytest.approx(1.0)
    assert 0.5 < model.win_probability(strong, weak) < 1
    assert finishing_ranks([40, 55, 55, 101]) == [0, 1, 1, 3]


def test_a_pool_run_reports_every_figure_and_is_seeded():
    first = run_pool(make_model("glicko-elo"), SMALL, seed=3)
    again = run_pool(make_model("glicko-elo"), SMALL, seed=3)

    assert first.rated == 800 and first.ratings == again.ratings and first.log_loss == again.log_loss
    assert 0.3 < first.tau_mean <= 1 and 0.5 < first.log_loss < 0.75
    assert 0.5 < first.log_loss_late < 0.75 and first.log_loss_late != first.log_loss  # the second half's only
    assert set(first.newcomer_error) == set(NEWCOMER_CHECKPOINTS)
    assert all(0 <= first.newcomer_error[k] <= 100 for k in (5, 10, 20))  # 4 newcomers, 80 games each
    assert first.updates_per_second > 0 and first.mean_wait > 0


def test_the_queue_seats_closer_skills_together_than_random_tables_would():
    """Random tables of 3-5 drawn from N(0, 1) have a mean within-table SD of about 0.8; the queue,
    seating by rating, brings it down once the ratings mean something."""
    result = run_pool(make_model("glicko-elo"), PoolSpec(players=60, games=3000, eval_every=500), seed=5)
    assert result.table_spread < 0.65


def test_newcomers_join_halfway_and_only_then():
    spec = PoolSpec(players=40, games=400, newcomers=0.25, eval_every=100)
    result = run_pool(make_model("glicko-elo"), spec, seed=2)
    newcomers = result.ratings[30:]
    assert all(s != make_model("glicko-elo").initial() for s in newcomers)  # they played
    assert statistics_mean_sigma(newcomers) > statistics_mean_sigma(result.ratings[:30])  # fewer games


def statistics_mean_sigma(skills):
    return sum(s.sigma for s in skills) / len(skills)


def test_the_command_line_runs_the_pool_scenario_with_its_anchors(capsys, tmp_path):
    out = tmp_path / "runs.json"
    assert (
        bench.main(
            [
                "--scenario",
                "pool",
                "--players",
                "30",
                "--games",
                "400",
                "--seeds",
                "3-4",
                "--models",
                "glicko-elo,glicko-elo:centre_weight=0,trueskill,openskill-pl-matched",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "new@10" in text and "trueskill" in text and "glicko-elo:centre_weight=0" in text
    assert "against the anchors" in text and "load average" in text
    assert out.read_text().count('"tau_conservative"') == 8


def test_the_command_line_refuses_unknown_models_and_bad_parameters():
    with pytest.raises(SystemExit):
        bench.main(["--scenario", "pool", "--models", "glicko-7"])
    with pytest.raises(SystemExit):
        bench.main(["--scenario", "pool", "--models", "glicko-elo:centre_weight"])


def test_the_default_start_leaves_a_queue_seated_pool_about_as_spread_as_its_skills():
    """The ranked queue seats by rating, so first games that moved newcomers too far are never undone:
    started at sigma 150 with no pull, glicko-elo's ratings end far more spread than the skills they
    rank (over-confident predictions); the default start, 80, about the players' spread, does not."""

    def spread(model):
        result = run_pool(model, PoolSpec(players=60, games=3000, eval_every=500), seed=5)
        mus = [s.mu for s in result.ratings]
        return statistics.pstdev(mus) / points_per_skill_sd(model, 2.5) / statistics.pstdev(result.skills)

    assert 0.85 < spread(make_model("glicko-elo")) < 1.15
    assert spread(make_model("glicko-elo", sigma=150.0, centre_weight=0.0)) > 1.25

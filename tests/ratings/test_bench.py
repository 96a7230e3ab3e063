"""The rating bench: its Kendall's tau, its simulated games, and a tiny end-to-end run."""

import doctest
import random

import pytest

from ratings import bench
from ratings.bench import kendall_tau, simulate
from ratings.rating import TUNED, make_model


def simulated(**overrides):
    options = dict(
        players=40,
        games=600,
        seed=3,
        table_sizes=[3, 4, 5],
        luck=2.5,
        late=0.25,
        holdout_every=10,
        drift=0.0,
        eval_every=100,
    )
    return simulate(**{**options, **overrides})


def test_kendall_tau_of_orders_and_reversals():
    assert kendall_tau([1, 2, 3, 4, 5], [2, 4, 6, 8, 10]) == 1.0
    assert kendall_tau([1, 2, 3, 4, 5], [5, 4, 3, 2, 1]) == -1.0
    # one swapped pair out of six: (5 - 1) / 6
    assert kendall_tau([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(4 / 6)


def test_kendall_tau_b_matches_the_textbook_formula_with_ties():
    rng = random.Random(1)
    x = [rng.randint(0, 5) for _ in range(30)]
    y = [rng.randint(0, 5) for _ in range(30)]
    pairs = [(i, j) for i in range(30) for j in range(i + 1, 30)]
    concordant = sum((x[i] - x[j]) * (y[i] - y[j]) > 0 for i, j in pairs)
    discordant = sum((x[i] - x[j]) * (y[i] - y[j]) < 0 for i, j in pairs)
    tied_x = sum(x[i] == x[j] for i, j in pairs)
    tied_y = sum(y[i] == y[j] for i, j in pairs)
    n0 = len(pairs)
    expected = (concordant - discordant) / ((n0 - tied_x) * (n0 - tied_y)) ** 0.5
    assert kendall_tau(x, y) == pytest.approx(expected)


def test_the_simulation_has_ties_late_joiners_held_out_games_and_is_seeded():
    population = simulated()
    rated = [g for g in population.games if not g.held_out]
    assert len(rated) == 600 and len(population.games) == 660
    assert any(len(set(g.totals)) < len(g.totals) for g in rated)
    assert {len(g.seats) for g in rated} == {3, 4, 5}
    late = [p for p, start in enumerate(population.joined_at) if start > 0]
    assert len(late) == 10
    first_game = {p: next(i for i, g in enumerate(rated) if p in g.seats) for p in late}
    assert all(first_game[p] >= population.joined_at[p] for p in late)
    assert simulated().games == population.games


def test_random_seat_tables_of_four():
    assert {len(g.seats) for g in simulated(table_sizes=[4]).games} == {4}


def test_a_run_reports_every_figure():
    result = bench.run(make_model("bt-full"), simulated(), eval_every=100)
    assert result.rated == 600
    assert -1 <= result.tau_conservative <= 1 and result.tau_mean > 0.3
    assert 0.4 < result.log_loss < 0.8
    assert result.updates_per_second > 0


def test_the_command_line_compares_models(capsys):
    assert bench.main(["--players", "30", "--games", "300", "--models", "bt-full,elo"]) == 0
    out = capsys.readouterr().out
    assert "tau cons" in out and "bt-full" in out and "elo" in out


def test_bench_examples():
    assert doctest.testmod(bench).failed == 0


@pytest.mark.parametrize("name", sorted(bench.GRIDS))
def test_every_grid_searches_parameters_of_its_model_and_tuned_values_are_grid_points(name):
    grid, params = bench.GRIDS[name], make_model(name).params
    assert set(grid) <= set(params)
    assert set(TUNED[name]) <= set(grid)
    assert all(params[key] in grid[key] for key in TUNED[name])

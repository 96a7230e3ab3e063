"""The bench's batch reference: the ceiling a model rating by pairwise results can reach."""

import pytest

from ratings import bench
from ratings.bench import batch_reference, mean_score_reference, simulate


def simulated(**overrides):
    options = dict(
        players=40,
        games=1500,
        seed=5,
        table_sizes=[4],
        luck=2.5,
        late=0.2,
        holdout_every=10,
        drift=0.0,
        eval_every=100,
    )
    return simulate(**{**options, **overrides})


def test_the_batch_reference_ranks_like_the_mean_score_or_better_and_is_repeatable():
    population = simulated()
    tau = batch_reference(population, luck=2.5)
    assert tau == batch_reference(population, luck=2.5)
    # it uses the opponents and the prior as well, so it is no worse than the plain mean
    # score by more than noise (one swapped pair of 40 players is 1/780 of tau)
    assert tau >= mean_score_reference(population) - 0.02
    assert 0.5 < tau < 1


def test_with_little_luck_the_batch_reference_finds_the_true_order():
    population = simulated(luck=0.3)
    assert batch_reference(population, luck=0.3) > 0.9


def test_the_batch_reference_needs_some_luck():
    with pytest.raises(ValueError, match="luck"):
        batch_reference(simulated(), luck=0.0)


def test_the_command_line_prints_both_references(capsys):
    assert bench.main(["--players", "30", "--games", "300", "--models", "elo", "--table-sizes", "4"]) == 0
    out = capsys.readouterr().out
    assert "mean pairwise score" in out and "batch MAP" in out

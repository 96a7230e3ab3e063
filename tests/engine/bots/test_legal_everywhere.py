"""Every bot returns a legal choice, for every rules option and table size.

Commands go through the validated ``Game`` path, which raises IllegalMove on anything
illegal; thousands of positions for ``random``/``rule``, fewer for ``montecarlo``
(small budget).
"""

from __future__ import annotations

import random

import pytest

from engine import Game, bots

from .helpers import RULE_SETS, apply, play_until, rules, rules_id, step


@pytest.mark.parametrize("spec", RULE_SETS, ids=rules_id)
def test_random_and_rule_always_legal(spec):
    r = rules(spec)
    n = r.players
    decisions = 0
    for seed in range(3):
        rng = random.Random(seed)
        seats = [bots.make(rng.choice(["random", "rule"]), seed=seed * 10 + s) for s in range(n)]
        g = Game.new(r, seed=seed)
        decisions += play_until(g, seats, hands=4)
    assert decisions >= 4 * 3 * n * 10


@pytest.mark.parametrize("spec", RULE_SETS, ids=rules_id)
def test_montecarlo_always_legal(spec):
    r = rules(spec)
    n = r.players
    mc = bots.make("montecarlo", seed=1, samples=2)
    seats = [mc] + [bots.make("rule", seed=s) for s in range(1, n)]
    g = Game.new(r, seed=7)
    decisions = 0
    while g.phase != "game_over" and len(g.hand_scores) < 2:
        seat = g.to_act[0]
        step(g, seats)
        decisions += seat == 0
    assert decisions >= 2 * r.hand_size


def test_thousands_of_random_positions():
    """Random games across all rule sets; at each position every bot kind must give a
    command the game accepts (checked on copies), then play goes on at random."""
    rng = random.Random(42)
    kinds = [bots.make("random", seed=1), bots.make("rule", seed=1)]
    mc = bots.make("montecarlo", seed=1, samples=1)
    checked = 0
    for i in range(120):
        r = rules(RULE_SETS[i % len(RULE_SETS)])
        g = Game.new(r, seed=1000 + i)
        walker = bots.make("random", seed=i)
        while g.phase != "game_over" and len(g.hand_scores) < 1:
            seat = g.to_act[0]
            view = g.view(seat)
            for b in kinds + ([mc] if rng.random() < 0.15 else []):
                copy = g.copy()
                apply(copy, seat, b.decide(view))
                checked += 1
            step(g, [walker] * r.players)
    assert checked >= 5000

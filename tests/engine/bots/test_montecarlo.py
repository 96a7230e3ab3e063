"""Monte Carlo specifics: equivalent cards searched once, sensible choices, budgets."""

from __future__ import annotations

from engine import Game, Rules, bots
from engine.bots.knowledge import Knowledge
from engine.bots.montecarlo import candidates, utility_fn
from engine.cards import NAMES

from .test_rule_scenarios import QUEEN_DUMP, h


def test_touching_cards_are_searched_once():
    deal = [
        h("2C 5C 6C 7C 9C 3D 4D 5D 6D 7D 8D 9D TD"),
        h("3C 4C 8C TC JC QC KC AC JD QD KD AD 2D"),
        h("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"),
        h("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"),
    ]
    g = Game.new(Rules(passing="off"), deals=[deal])
    # trick 1: 2C 3C 2H 2S (seat 1 wins); trick 2: seat 1 leads 4C, seat 0 follows last
    for seat, card in ((0, "2C"), (1, "3C"), (2, "2H"), (3, "2S"), (1, "4C"), (2, "3H"), (3, "3S")):
        g.play(seat, card)
    know = Knowledge.from_view(g.view(0))
    names = [NAMES[c] for c in candidates(know)]
    # 5C 6C 7C touch (nothing between them is out); 8C is out, so 9C stands apart
    assert names == ["5C", "9C"]


def test_dumps_the_queen_when_void():
    g = Game.new(Rules(passing="off", no_points_first_trick=False), deals=[QUEEN_DUMP])
    g.play(0, "2C")
    cmd = bots.make("montecarlo", seed=1, samples=20).decide(g.view(1))
    assert cmd == {"type": "play", "card": "QS"}


def test_the_objective_becomes_the_game_near_the_end_score():
    g = Game.new(Rules(passing="off", end_score=30), seed=2)
    view = g.view(g.to_act[0])
    view["totals"] = [0, 0, 0, 0]
    assert utility_fn(Knowledge.from_view(view)) is not None  # 26 more could end it
    view["totals"] = [0, 0, 0, 0]
    far = Game.new(Rules(passing="off", end_score=100), seed=2)
    assert utility_fn(Knowledge.from_view(far.view(far.to_act[0]))) is None


def test_budget_parameters_bound_the_work():
    g = Game.new(Rules(passing="off"), seed=4)
    while len(g.legal_plays(g.to_act[0])) < 2:
        g.play(g.to_act[0], g.legal_plays(g.to_act[0])[0])
    view = g.view(g.to_act[0])
    for kw in ({"samples": 1}, {"playouts": 3}, {"time_budget_ms": 1}):
        assert bots.make("montecarlo", seed=1, **kw).decide(view)["type"] == "play"

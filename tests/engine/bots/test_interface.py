"""The bot interface: make by name, the command shapes, refusals, determinism, views only."""

from __future__ import annotations

import json

import pytest

from engine import Game, Rules, bots
from engine.cards import NAMES, cards_of

from .helpers import apply


def test_make_builds_every_bot_by_name():
    for name in ("random", "rule", "montecarlo"):
        bot = bots.make(name, seed=1)
        assert bot.name == name


def test_make_refuses_an_unknown_name():
    with pytest.raises(ValueError, match="unknown bot"):
        bots.make("genius")


def test_make_refuses_bad_parameters():
    with pytest.raises(ValueError):
        bots.make("rule", playouts=10)
    with pytest.raises(ValueError):
        bots.make("montecarlo", playouts=0)


def test_montecarlo_takes_its_budget_parameters():
    bot = bots.make("montecarlo", seed=1, playouts=50, time_budget_ms=20, samples=3)
    g = Game.new(Rules(passing="off"), seed=4)
    play_to_first_choice(g)
    cmd = bot.decide(g.view(g.to_act[0]))
    assert cmd["type"] == "play"


def play_to_first_choice(g: Game) -> None:
    """Play lowest cards until the seat to act has a real choice."""
    while len(g.legal_plays(g.to_act[0])) < 2:
        g.play(g.to_act[0], g.legal_plays(g.to_act[0])[0])


@pytest.mark.parametrize("name", ["random", "rule", "montecarlo"])
def test_pass_command_shape(name):
    g = Game.new(Rules(), seed=3)
    view = g.view(2)
    cmd = bots.make(name, seed=1).decide(view)
    assert cmd["type"] == "pass" and set(cmd) == {"type", "cards"}
    assert len(set(cmd["cards"])) == 3 and set(cmd["cards"]) <= set(view["hand"])
    assert all(isinstance(c, str) for c in cmd["cards"])


@pytest.mark.parametrize("name", ["random", "rule", "montecarlo"])
def test_play_command_shape(name):
    g = Game.new(Rules(passing="off"), seed=3)
    play_to_first_choice(g)
    seat = g.to_act[0]
    cmd = bots.make(name, seed=1, **({"samples": 4} if name == "montecarlo" else {})).decide(g.view(seat))
    assert set(cmd) == {"type", "card"} and cmd["type"] == "play"
    assert cmd["card"] in g.view(seat)["legal_plays"]


def moon_game(rules: Rules) -> Game:
    """Seat 0 holds every club and leads them all: it takes every trick (the moon)."""
    deal = [
        [NAMES[c] for c in range(0, 13)],
        [NAMES[c] for c in range(26, 39)],
        [NAMES[c] for c in range(13, 26)],
        [NAMES[c] for c in range(39, 52)],
    ]
    g = Game.new(rules, deals=[deal])
    rule = bots.make("rule", seed=0)
    while g.phase == "playing":
        s = g.to_act[0]
        apply(g, s, rule.decide(g.view(s)))
    return g


@pytest.mark.parametrize("name", ["random", "rule", "montecarlo"])
def test_moon_choice_command(name):
    g = moon_game(Rules(passing="off", moon="shooter_chooses"))
    assert g.phase == "moon_choice" and g.to_act == (0,)
    cmd = bots.make(name, seed=2).decide(g.view(0))
    assert cmd["type"] == "moon_choice"
    assert cmd["choice"] in ("add_to_others", "subtract_from_self")
    with pytest.raises(ValueError):
        bots.make(name).decide(g.view(1))  # not the shooter


def test_moon_choice_prefers_ending_the_game_as_winner():
    g = moon_game(Rules(passing="off", moon="shooter_chooses", end_score=20))
    # adding 26 to the others ends the game with seat 0 the sole lowest
    assert bots.make("rule").decide(g.view(0))["choice"] == "add_to_others"


def test_moon_choice_avoids_ending_the_game_as_loser():
    g = moon_game(Rules(passing="off", moon="shooter_chooses", end_score=60))
    view = g.view(0)
    view["totals"] = [50, 10, 12, 15]  # adding 26 would end it with seat 0 not lowest
    assert bots.make("rule").decide(view)["choice"] == "subtract_from_self"


@pytest.mark.parametrize("name", ["random", "rule", "montecarlo"])
def test_refuses_views_that_do_not_await_the_seat(name):
    bot = bots.make(name, seed=1)
    g = Game.new(Rules(passing="off"), seed=3)
    seat = g.to_act[0]
    with pytest.raises(ValueError):
        bot.decide(g.view((seat + 1) % 4))  # not its turn
    with pytest.raises(ValueError):
        bot.decide(g.view(None))  # a spectator
    p = Game.new(Rules(), seed=3)
    p.pass_cards(1, p.hand(1)[:3])
    with pytest.raises(ValueError):
        bot.decide(p.view(1))  # already passed


def test_refuses_anything_but_a_view():
    g = Game.new(Rules(), seed=1)
    with pytest.raises(TypeError):
        bots.make("rule").decide(g)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["random", "rule", "montecarlo"])
def test_works_from_a_json_round_trip(name):
    g = Game.new(Rules(passing="off"), seed=9)
    play_to_first_choice(g)
    seat = g.to_act[0]
    view = g.view(seat)
    wire = json.loads(json.dumps(view))
    kw = {"samples": 5} if name == "montecarlo" else {}
    assert bots.make(name, seed=3, **kw).decide(wire) == bots.make(name, seed=3, **kw).decide(view)


@pytest.mark.parametrize("name", ["random", "rule", "montecarlo"])
def test_same_seed_same_view_same_decision_whatever_came_before(name):
    kw = {"samples": 6} if name == "montecarlo" else {}
    views = []
    for seed in range(6):
        g = Game.new(Rules(passing="off"), seed=seed)
        play_to_first_choice(g)
        views.append(g.view(g.to_act[0]))
    a = bots.make(name, seed=11, **kw)
    first = [a.decide(v) for v in views]
    b = bots.make(name, seed=11, **kw)
    assert [b.decide(v) for v in reversed(views)] == list(reversed(first))
    assert [a.decide(v) for v in views] == first


def swapped_twin(seed: int, plays: int) -> tuple[Game, Game, int]:
    """Two games that differ only in two other seats' unplayed cards (same suit swapped),
    after the same ``plays`` cards; returns them and the seat to act."""
    rules = Rules(passing="off")
    g = Game.new(rules, seed=seed)
    deal = [list(g.hand(s)) for s in range(4)]
    script = []
    for _ in range(plays):
        s = g.to_act[0]
        c = g.legal_plays(s)[-1]
        script.append((s, c))
        g.play(s, c)
    me = g.to_act[0]
    others = [s for s in range(4) if s != me]
    played = {c for _, c in script}
    for a in others:
        for b in others:
            if a >= b:
                continue
            for ca in g.hand(a):
                for cb in g.hand(b):
                    if ca.suit == cb.suit and ca != cb and ca not in played and str(ca) != "QS" and str(cb) != "QS":
                        deal2 = [[str(c) for c in h] for h in deal]
                        deal2[a] = [str(cb) if c == ca else str(c) for c in deal[a]]
                        deal2[b] = [str(ca) if c == cb else str(c) for c in deal[b]]
                        h = Game.new(rules, deals=[deal2])
                        for s, c in script:
                            h.play(s, c)
                        return g, h, me
    raise AssertionError("no swap found")


@pytest.mark.parametrize("name", ["random", "rule", "montecarlo"])
def test_hidden_cards_do_not_change_a_seeded_decision(name):
    kw = {"samples": 10} if name == "montecarlo" else {}
    for seed, plays in ((1, 5), (2, 9), (3, 17), (4, 26)):
        g, h, me = swapped_twin(seed, plays)
        assert [cards_of(x) for x in (g.state.hands)] != [cards_of(x) for x in h.state.hands]
        assert g.view(me) == h.view(me)
        assert bots.make(name, seed=5, **kw).decide(g.view(me)) == bots.make(name, seed=5, **kw).decide(h.view(me))
